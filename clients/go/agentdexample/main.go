// Command agentdexample shows how a Go gateway calls agentd: start a task and
// stream its events, resume a stream after a disconnect, set a deadline on a
// call without killing the task, wait quietly for an approval with keepalive
// pings, decode agentd's errors, and check health (Check, Watch and grpc-go's
// client-side health checking).
//
//	agentdexample -target 127.0.0.1:50051 stream
//
// Each scenario prints what it saw as key=value lines and exits non-zero when
// agentd did not behave as documented.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	agentdv1 "agentd.dev/gen/agentd/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/health" // registers client-side health checking
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"
)

var scenarios = map[string]func(context.Context, *grpc.ClientConn) error{
	"stream":        stream,
	"resume":        resume,
	"deadline":      deadline,
	"approval-wait": approvalWait,
	"errors":        decodeErrors,
	"rate-limit":    rateLimit,
	"health":        health,
	"health-watch":  healthWatch,
	"health-client": healthClient,
}

var (
	target   = flag.String("target", "127.0.0.1:50051", "agentd's address")
	approver = flag.String("approver-key", "", "API key of an approver (approval-wait)")
)

func main() {
	flag.Parse()
	run, ok := scenarios[flag.Arg(0)]
	if !ok {
		fmt.Fprintf(os.Stderr, "usage: agentdexample [-target host:port] SCENARIO\nscenarios: %s\n",
			"stream resume deadline approval-wait errors rate-limit health health-watch health-client")
		os.Exit(2)
	}
	conn, err := dial(*target, "")
	if err != nil {
		fail(err)
	}
	defer conn.Close()
	ctx := context.Background()
	if key := os.Getenv("AGENTD_API_KEY"); key != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
	}
	if err := run(ctx, conn); err != nil {
		fail(err)
	}
}

// dial opens a channel with the keepalive a gateway behind a load balancer uses:
// a ping after 10 s without activity, also with no call in flight.
func dial(address, serviceConfig string) (*grpc.ClientConn, error) {
	options := []grpc.DialOption{
		grpc.WithInsecure(), // grpc-go 1.34+: grpc.WithTransportCredentials(insecure.NewCredentials())
		grpc.WithKeepaliveParams(keepalive.ClientParameters{
			Time:                10 * time.Second,
			Timeout:             5 * time.Second,
			PermitWithoutStream: true,
		}),
	}
	if serviceConfig != "" {
		options = append(options, grpc.WithDefaultServiceConfig(serviceConfig))
	}
	return grpc.Dial(address, options...)
}

func fail(err error) {
	fmt.Println("error=" + describe(err))
	os.Exit(1)
}

func client(conn *grpc.ClientConn) agentdv1.AgentServiceClient {
	return agentdv1.NewAgentServiceClient(conn)
}

// stream runs a task and prints every event of its log, in order.
func stream(ctx context.Context, conn *grpc.ClientConn) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	events, err := client(conn).Execute(ctx, &agentdv1.ExecuteRequest{Task: "what is 6*7?"})
	if err != nil {
		return err
	}
	var last *agentdv1.TaskEvent
	for {
		event, err := events.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if event.GetHeartbeat() != nil { // not part of the log: sequence 0
			continue
		}
		fmt.Printf("event=%d %s\n", event.GetSequence(), kind(event))
		if result := event.GetToolCallFinished(); result != nil {
			fmt.Printf("tool=%s result=%s\n", result.GetToolName(), result.GetText())
		}
		if answer := event.GetFinalAnswer(); answer != nil {
			fmt.Printf("answer=%s\n", answer.GetText())
		}
		last = event
	}
	if last == nil || last.GetStatusChanged().GetCurrent() != agentdv1.TaskStatus_TASK_STATUS_COMPLETED {
		return fmt.Errorf("the stream ended before the task completed")
	}
	fmt.Println("status=COMPLETED")
	return nil
}

// resume drops the stream after three events, as a lost connection would, and
// picks the log up again from the last sequence it saw: every event exactly once.
func resume(ctx context.Context, conn *grpc.ClientConn) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	first, stop := context.WithCancel(ctx)
	events, err := client(conn).Execute(first, &agentdv1.ExecuteRequest{Task: "what is 6*7?"})
	if err != nil {
		stop()
		return err
	}
	var taskID string
	var seen []uint64
	for len(seen) < 3 {
		event, err := events.Recv()
		if err != nil {
			stop()
			return err
		}
		if event.GetHeartbeat() == nil {
			taskID = event.GetTaskId()
			seen = append(seen, event.GetSequence())
		}
	}
	stop() // the connection is gone; the task runs on (cancel_on_disconnect is false)
	fmt.Printf("dropped_after=%d\n", seen[len(seen)-1])
	again, err := client(conn).StreamTaskEvents(ctx, &agentdv1.StreamTaskEventsRequest{
		TaskId: taskID, AfterSequence: seen[len(seen)-1],
	})
	if err != nil {
		return err
	}
	for {
		event, err := again.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if event.GetHeartbeat() == nil {
			seen = append(seen, event.GetSequence())
		}
	}
	for i, sequence := range seen {
		if sequence != uint64(i+1) {
			return fmt.Errorf("sequences %v are not 1..%d exactly once", seen, len(seen))
		}
	}
	fmt.Printf("events=%d\nexactly_once=true\n", len(seen))
	return nil
}

// deadline sets a 1 s deadline on Execute for a task that takes longer: the call
// ends DEADLINE_EXCEEDED, the task does not. The gateway then polls GetTask, each
// poll with its own deadline, and finds the real answer.
func deadline(ctx context.Context, conn *grpc.ClientConn) error {
	call, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	events, err := client(conn).Execute(call, &agentdv1.ExecuteRequest{
		Task:    "what is 6*7, slowly?",
		Timeout: durationpb.New(60 * time.Second), // the task's own limit, not the call's
	})
	if err != nil {
		return err
	}
	var taskID string
	for {
		event, err := events.Recv()
		if err != nil {
			if status.Code(err) != codes.DeadlineExceeded {
				return err
			}
			fmt.Println("stream=DEADLINE_EXCEEDED")
			break
		}
		taskID = event.GetTaskId()
	}
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(250 * time.Millisecond) {
		poll, cancelPoll := context.WithTimeout(ctx, 2*time.Second)
		task, err := client(conn).GetTask(poll, &agentdv1.GetTaskRequest{TaskId: taskID})
		cancelPoll()
		if err != nil {
			return err
		}
		if task.GetStatus() == agentdv1.TaskStatus_TASK_STATUS_COMPLETED ||
			task.GetStatus() == agentdv1.TaskStatus_TASK_STATUS_FAILED ||
			task.GetStatus() == agentdv1.TaskStatus_TASK_STATUS_CANCELLED {
			fmt.Printf("task=%s\nanswer=%s\n", strings.TrimPrefix(task.GetStatus().String(), "TASK_STATUS_"), task.GetFinalAnswer())
			return nil
		}
	}
	return fmt.Errorf("task %s did not end within 30 s", taskID)
}

// approvalWait runs a task whose tool call needs a person's approval. The stream
// stays silent while it waits; the channel's keepalive pings every 10 s must not
// get it closed. After 60 s an approver (another service) approves the call.
func approvalWait(ctx context.Context, conn *grpc.ClientConn) error {
	ctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	events, err := client(conn).Execute(ctx, &agentdv1.ExecuteRequest{Task: "write the report"})
	if err != nil {
		return err
	}
	for {
		event, err := events.Recv()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the stream ended before the task did")
		}
		if err != nil {
			return err
		}
		if asked := event.GetApprovalRequested(); asked != nil {
			fmt.Printf("approval_requested=%s\n", asked.GetToolName())
			waited := time.Now()
			go func() {
				time.Sleep(60 * time.Second)
				approve(ctx, conn, event.GetTaskId(), asked.GetCallId())
			}()
			defer func() { fmt.Printf("silent_seconds=%.0f\n", time.Since(waited).Seconds()) }()
		}
		if changed := event.GetStatusChanged(); changed != nil &&
			changed.GetCurrent() == agentdv1.TaskStatus_TASK_STATUS_COMPLETED {
			fmt.Println("status=COMPLETED")
			return nil
		}
	}
}

func approve(ctx context.Context, conn *grpc.ClientConn, taskID, callID string) {
	if *approver != "" {
		ctx = metadata.NewOutgoingContext(ctx, metadata.Pairs("authorization", "Bearer "+*approver))
	}
	call, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err := client(conn).ApproveToolCall(call, &agentdv1.ApproveToolCallRequest{
		TaskId: taskID, CallId: callID, Decision: agentdv1.ApprovalDecision_APPROVAL_DECISION_APPROVE,
	})
	if err != nil {
		fmt.Println("approve_error=" + describe(err))
	}
}

// decodeErrors shows how a gateway reads agentd's errors: switch on ErrorInfo's
// reason, list BadRequest's field violations, map the code to an HTTP status.
func decodeErrors(ctx context.Context, conn *grpc.ClientConn) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	arguments, _ := structOf(map[string]interface{}{"expression": 42, "unexpected": true})
	_, err := client(conn).CallTool(ctx, &agentdv1.CallToolRequest{ToolName: "calculator", Arguments: arguments})
	fmt.Println("call_tool=" + describe(err))
	_, err = client(conn).GetTask(ctx, &agentdv1.GetTaskRequest{TaskId: "task_000000000000000000000000"})
	fmt.Println("get_task=" + describe(err))
	return nil
}

// rateLimit lists tasks until agentd says RESOURCE_EXHAUSTED and shows the RetryInfo
// a gateway turns into its own 429 with Retry-After.
func rateLimit(ctx context.Context, conn *grpc.ClientConn) error {
	for i := 0; i < 100; i++ {
		call, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := client(conn).ListTasks(call, &agentdv1.ListTasksRequest{})
		cancel()
		if status.Code(err) == codes.ResourceExhausted {
			fmt.Println("rate_limited=" + describe(err))
			return nil
		}
		if err != nil {
			return err
		}
	}
	return fmt.Errorf("100 calls and no rate limit")
}

func health(ctx context.Context, conn *grpc.ClientConn) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	answer, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return err
	}
	fmt.Println("health=" + answer.GetStatus().String())
	return nil
}

func healthWatch(ctx context.Context, conn *grpc.ClientConn) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	watch, err := healthpb.NewHealthClient(conn).Watch(ctx, &healthpb.HealthCheckRequest{
		Service: "agentd.v1.AgentService",
	})
	if err != nil {
		return err
	}
	answer, err := watch.Recv()
	if err != nil {
		return err
	}
	fmt.Println("watch=" + answer.GetStatus().String())
	return nil
}

// healthClient uses grpc-go's client-side health checking (which runs Health/Watch
// on every subchannel): calls succeed only while agentd reports SERVING.
func healthClient(ctx context.Context, _ *grpc.ClientConn) error {
	conn, err := dial(*target, `{"loadBalancingConfig": [{"round_robin": {}}],
		"healthCheckConfig": {"serviceName": "agentd.v1.AgentService"}}`)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	tools, err := client(conn).ListTools(ctx, &agentdv1.ListToolsRequest{}, grpc.WaitForReady(true))
	if err != nil {
		return err
	}
	fmt.Printf("health_checked_call=OK tools=%d\n", len(tools.GetTools()))
	return nil
}

// describe renders an agentd error the way a gateway would log and map it.
func describe(err error) string {
	if err == nil {
		return "OK"
	}
	st := status.Convert(err)
	parts := []string{st.Code().String(), "http=" + fmt.Sprint(httpStatus(st.Code()))}
	for _, detail := range st.Details() {
		switch d := detail.(type) {
		case *errdetails.ErrorInfo:
			parts = append(parts, "reason="+d.GetReason())
		case *errdetails.BadRequest:
			for _, violation := range d.GetFieldViolations() {
				parts = append(parts, "field="+violation.GetField())
			}
		case *errdetails.RetryInfo:
			parts = append(parts, fmt.Sprintf("retry_after=%.3fs", d.GetRetryDelay().AsDuration().Seconds()))
		}
	}
	return strings.Join(parts, " ")
}

// httpStatus is the usual gRPC -> HTTP mapping a gateway answers its own callers with.
func httpStatus(code codes.Code) int {
	switch code {
	case codes.OK:
		return 200
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return 400
	case codes.Unauthenticated:
		return 401
	case codes.PermissionDenied:
		return 403
	case codes.NotFound:
		return 404
	case codes.AlreadyExists, codes.Aborted:
		return 409
	case codes.ResourceExhausted:
		return 429
	case codes.Canceled:
		return 499
	case codes.Unimplemented:
		return 501
	case codes.Unavailable:
		return 503
	case codes.DeadlineExceeded:
		return 504
	default:
		return 500
	}
}

func kind(event *agentdv1.TaskEvent) string {
	name := fmt.Sprintf("%T", event.GetPayload())
	name = strings.TrimPrefix(name, "*agentdv1.TaskEvent_")
	return name
}
