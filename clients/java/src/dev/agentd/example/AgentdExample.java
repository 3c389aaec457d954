package dev.agentd.example;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Struct;
import com.google.protobuf.Value;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.agentd.v1.AgentServiceGrpc;
import dev.agentd.v1.ApprovalDecision;
import dev.agentd.v1.ApprovalRequested;
import dev.agentd.v1.ApproveToolCallRequest;
import dev.agentd.v1.CallToolRequest;
import dev.agentd.v1.ExecuteRequest;
import dev.agentd.v1.GetTaskRequest;
import dev.agentd.v1.ListTasksRequest;
import dev.agentd.v1.StreamTaskEventsRequest;
import dev.agentd.v1.Task;
import dev.agentd.v1.TaskEvent;
import dev.agentd.v1.TaskStatus;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * How a Java gateway calls agentd: start a task and stream its events, resume a stream
 * after a disconnect, set a deadline on a call without killing the task, wait quietly for
 * an approval with keepalive pings, decode agentd's errors, and check health.
 *
 * <pre>agentdexample --target 127.0.0.1:50051 stream</pre>
 *
 * <p>Each scenario prints what it saw as key=value lines and exits non-zero when agentd
 * did not behave as documented.
 */
public final class AgentdExample {
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final ManagedChannel channel;
  private final AgentServiceGrpc.AgentServiceBlockingStub blocking;
  private final AgentServiceGrpc.AgentServiceStub async;
  private final String approverKey;

  private AgentdExample(ManagedChannel channel, String apiKey, String approverKey) {
    this.channel = channel;
    Channel authenticated =
        apiKey.isEmpty() ? channel : io.grpc.ClientInterceptors.intercept(channel, bearer(apiKey));
    this.blocking = AgentServiceGrpc.newBlockingStub(authenticated);
    this.async = AgentServiceGrpc.newStub(authenticated);
    this.approverKey = approverKey;
  }

  public static void main(String[] args) throws Exception {
    String target = "127.0.0.1:50051";
    String approver = "";
    String scenario = "";
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--target", "-target" -> target = args[++i];
        case "--approver-key", "-approver-key" -> approver = args[++i];
        default -> scenario = args[i];
      }
    }
    // Keepalive as behind a load balancer: a ping after 10 s without activity, also idle.
    ManagedChannel channel =
        NettyChannelBuilder.forTarget(target)
            .usePlaintext()
            .keepAliveTime(10, TimeUnit.SECONDS)
            .keepAliveTimeout(5, TimeUnit.SECONDS)
            .keepAliveWithoutCalls(true)
            .build();
    String apiKey = System.getenv().getOrDefault("AGENTD_API_KEY", "");
    AgentdExample example = new AgentdExample(channel, apiKey, approver);
    int exit = 0;
    try {
      switch (scenario) {
        case "stream" -> example.stream();
        case "resume" -> example.resume();
        case "deadline" -> example.deadline();
        case "approval-wait" -> example.approvalWait();
        case "errors" -> example.errors();
        case "rate-limit" -> example.rateLimit();
        case "health" -> example.health();
        case "health-watch" -> example.healthWatch();
        default -> {
          System.err.println(
              "usage: agentdexample [--target host:port] SCENARIO\nscenarios: stream resume"
                  + " deadline approval-wait errors rate-limit health health-watch");
          exit = 2;
        }
      }
    } catch (StatusRuntimeException | IllegalStateException e) {
      System.out.println("error=" + describe(e));
      exit = 1;
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    System.exit(exit);
  }

  private static ClientInterceptor bearer(String key) {
    return new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(
          MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<>(
            next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(AUTHORIZATION, "Bearer " + key);
            super.start(listener, headers);
          }
        };
      }
    };
  }

  /** Runs a task and prints every event of its log, in order. */
  private void stream() {
    Iterator<TaskEvent> events =
        blocking
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .execute(ExecuteRequest.newBuilder().setTask("what is 6*7?").build());
    TaskEvent last = null;
    while (events.hasNext()) {
      TaskEvent event = events.next();
      if (event.hasHeartbeat()) {
        continue; // not part of the log: sequence 0
      }
      System.out.println("event=" + event.getSequence() + " " + event.getPayloadCase());
      if (event.hasToolCallFinished()) {
        var result = event.getToolCallFinished();
        System.out.println("tool=" + result.getToolName() + " result=" + result.getText());
      }
      if (event.hasFinalAnswer()) {
        System.out.println("answer=" + event.getFinalAnswer().getText());
      }
      last = event;
    }
    if (last == null || last.getStatusChanged().getCurrent() != TaskStatus.TASK_STATUS_COMPLETED) {
      throw new IllegalStateException("the stream ended before the task completed");
    }
    System.out.println("status=COMPLETED");
  }

  /**
   * Drops the stream after three events, as a lost connection would, and picks the log up
   * again from the last sequence seen: every event exactly once.
   */
  private void resume() throws Exception {
    List<Long> seen = new ArrayList<>();
    String taskId;
    try (Context.CancellableContext first = Context.current().withCancellation()) {
      taskId =
          first.call(
              () -> {
                Iterator<TaskEvent> events =
                    blocking
                        .withDeadlineAfter(30, TimeUnit.SECONDS)
                        .execute(ExecuteRequest.newBuilder().setTask("what is 6*7?").build());
                String id = "";
                while (seen.size() < 3) {
                  TaskEvent event = events.next();
                  if (!event.hasHeartbeat()) {
                    id = event.getTaskId();
                    seen.add(event.getSequence());
                  }
                }
                return id;
              });
      first.cancel(null); // the connection is gone; the task runs on
    }
    long after = seen.get(seen.size() - 1);
    System.out.println("dropped_after=" + after);
    Iterator<TaskEvent> again =
        blocking
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .streamTaskEvents(
                StreamTaskEventsRequest.newBuilder().setTaskId(taskId).setAfterSequence(after).build());
    while (again.hasNext()) {
      TaskEvent event = again.next();
      if (!event.hasHeartbeat()) {
        seen.add(event.getSequence());
      }
    }
    for (int i = 0; i < seen.size(); i++) {
      if (seen.get(i) != i + 1) {
        throw new IllegalStateException("sequences " + seen + " are not 1.." + seen.size());
      }
    }
    System.out.println("events=" + seen.size());
    System.out.println("exactly_once=true");
  }

  /**
   * A 1 s deadline on Execute for a task that takes longer: the call ends DEADLINE_EXCEEDED,
   * the task does not. The gateway then polls GetTask, each poll with its own deadline.
   */
  private void deadline() throws InterruptedException {
    String taskId = "";
    try {
      Iterator<TaskEvent> events =
          blocking
              .withDeadlineAfter(1, TimeUnit.SECONDS)
              .execute(
                  ExecuteRequest.newBuilder()
                      .setTask("what is 6*7, slowly?")
                      .setTimeout(Duration.newBuilder().setSeconds(60)) // the task's own limit
                      .build());
      while (events.hasNext()) {
        taskId = events.next().getTaskId();
      }
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.DEADLINE_EXCEEDED) {
        throw e;
      }
      System.out.println("stream=DEADLINE_EXCEEDED");
    }
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < until) {
      Task task =
          blocking
              .withDeadlineAfter(2, TimeUnit.SECONDS)
              .getTask(GetTaskRequest.newBuilder().setTaskId(taskId).build());
      TaskStatus status = task.getStatus();
      if (status == TaskStatus.TASK_STATUS_COMPLETED
          || status == TaskStatus.TASK_STATUS_FAILED
          || status == TaskStatus.TASK_STATUS_CANCELLED) {
        System.out.println("task=" + status.name().substring("TASK_STATUS_".length()));
        System.out.println("answer=" + task.getFinalAnswer());
        return;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("task " + taskId + " did not end within 30 s");
  }

  /**
   * A task whose tool call needs a person's approval. The stream stays silent while it
   * waits; the channel's keepalive pings every 10 s must not get it closed. After 60 s an
   * approver (another service) approves the call.
   */
  private void approvalWait() throws Exception {
    CompletableFuture<String> done = new CompletableFuture<>();
    ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();
    long[] waited = {0};
    async
        .withDeadlineAfter(120, TimeUnit.SECONDS)
        .execute(
            ExecuteRequest.newBuilder().setTask("write the report").build(),
            new StreamObserver<>() {
              @Override
              public void onNext(TaskEvent event) {
                if (event.hasApprovalRequested()) {
                  ApprovalRequested asked = event.getApprovalRequested();
                  System.out.println("approval_requested=" + asked.getToolName());
                  waited[0] = System.nanoTime();
                  later.schedule(
                      () -> approve(event.getTaskId(), asked.getCallId()), 60, TimeUnit.SECONDS);
                }
                if (event.getStatusChanged().getCurrent() == TaskStatus.TASK_STATUS_COMPLETED) {
                  done.complete("COMPLETED");
                }
              }

              @Override
              public void onError(Throwable error) {
                done.completeExceptionally(error);
              }

              @Override
              public void onCompleted() {
                done.complete("ENDED");
              }
            });
    try {
      String outcome = done.get(150, TimeUnit.SECONDS);
      System.out.printf("silent_seconds=%.0f%n", (System.nanoTime() - waited[0]) / 1e9);
      System.out.println("status=" + outcome);
    } catch (java.util.concurrent.ExecutionException e) {
      throw (e.getCause() instanceof StatusRuntimeException s) ? s : new IllegalStateException(e);
    } finally {
      later.shutdownNow();
    }
  }

  private void approve(String taskId, String callId) {
    AgentServiceGrpc.AgentServiceBlockingStub stub =
        approverKey.isEmpty()
            ? blocking
            : AgentServiceGrpc.newBlockingStub(
                io.grpc.ClientInterceptors.intercept(channel, bearer(approverKey)));
    try {
      stub.withDeadlineAfter(10, TimeUnit.SECONDS)
          .approveToolCall(
              ApproveToolCallRequest.newBuilder()
                  .setTaskId(taskId)
                  .setCallId(callId)
                  .setDecision(ApprovalDecision.APPROVAL_DECISION_APPROVE)
                  .build());
    } catch (StatusRuntimeException e) {
      System.out.println("approve_error=" + describe(e));
    }
  }

  /** How a gateway reads agentd's errors: ErrorInfo's reason, BadRequest's fields. */
  private void errors() {
    Struct arguments =
        Struct.newBuilder()
            .putAllFields(
                Map.of(
                    "expression", Value.newBuilder().setNumberValue(42).build(),
                    "unexpected", Value.newBuilder().setBoolValue(true).build()))
            .build();
    AgentServiceGrpc.AgentServiceBlockingStub stub =
        blocking.withDeadlineAfter(10, TimeUnit.SECONDS);
    try {
      stub.callTool(
          CallToolRequest.newBuilder().setToolName("calculator").setArguments(arguments).build());
      System.out.println("call_tool=OK");
    } catch (StatusRuntimeException e) {
      System.out.println("call_tool=" + describe(e));
    }
    try {
      stub.getTask(GetTaskRequest.newBuilder().setTaskId("task_000000000000000000000000").build());
      System.out.println("get_task=OK");
    } catch (StatusRuntimeException e) {
      System.out.println("get_task=" + describe(e));
    }
  }

  /** Lists tasks until RESOURCE_EXHAUSTED, and shows the RetryInfo a gateway turns into a 429. */
  private void rateLimit() {
    for (int i = 0; i < 100; i++) {
      try {
        blocking.withDeadlineAfter(5, TimeUnit.SECONDS).listTasks(ListTasksRequest.getDefaultInstance());
      } catch (StatusRuntimeException e) {
        if (e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED) {
          System.out.println("rate_limited=" + describe(e));
          return;
        }
        throw e;
      }
    }
    throw new IllegalStateException("100 calls and no rate limit");
  }

  private void health() {
    HealthCheckResponse answer =
        HealthGrpc.newBlockingStub(channel)
            .withDeadlineAfter(5, TimeUnit.SECONDS)
            .check(HealthCheckRequest.getDefaultInstance());
    System.out.println("health=" + answer.getStatus());
  }

  private void healthWatch() {
    Iterator<HealthCheckResponse> watch =
        HealthGrpc.newBlockingStub(channel)
            .withDeadlineAfter(5, TimeUnit.SECONDS)
            .watch(HealthCheckRequest.newBuilder().setService("agentd.v1.AgentService").build());
    System.out.println("watch=" + watch.next().getStatus());
  }

  /** An agentd error the way a gateway would log and map it. */
  static String describe(Exception error) {
    Status status = Status.fromThrowable(error);
    if (!(error instanceof StatusRuntimeException)) {
      return "INTERNAL " + error.getMessage();
    }
    StringBuilder out = new StringBuilder(codeName(status.getCode()));
    out.append(" http=").append(httpStatus(status.getCode()));
    com.google.rpc.Status details = StatusProto.fromThrowable(error);
    if (details != null) {
      for (Any detail : details.getDetailsList()) {
        try {
          if (detail.is(ErrorInfo.class)) {
            out.append(" reason=").append(detail.unpack(ErrorInfo.class).getReason());
          } else if (detail.is(BadRequest.class)) {
            for (var violation : detail.unpack(BadRequest.class).getFieldViolationsList()) {
              out.append(" field=").append(violation.getField());
            }
          } else if (detail.is(RetryInfo.class)) {
            Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
            out.append(String.format(" retry_after=%.3fs", delay.getSeconds() + delay.getNanos() / 1e9));
          }
        } catch (InvalidProtocolBufferException e) {
          out.append(" undecodable_detail=").append(detail.getTypeUrl());
        }
      }
    }
    return out.toString();
  }

  /** The names grpc-go prints, so both examples read the same. */
  private static String codeName(Status.Code code) {
    StringBuilder name = new StringBuilder();
    for (String part : code.name().split("_")) {
      name.append(part.charAt(0)).append(part.substring(1).toLowerCase());
    }
    return code == Status.Code.CANCELLED ? "Canceled" : name.toString();
  }

  /** The usual gRPC to HTTP mapping a gateway answers its own callers with. */
  static int httpStatus(Status.Code code) {
    return switch (code) {
      case OK -> 200;
      case INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE -> 400;
      case UNAUTHENTICATED -> 401;
      case PERMISSION_DENIED -> 403;
      case NOT_FOUND -> 404;
      case ALREADY_EXISTS, ABORTED -> 409;
      case RESOURCE_EXHAUSTED -> 429;
      case CANCELLED -> 499;
      case UNIMPLEMENTED -> 501;
      case UNAVAILABLE -> 503;
      case DEADLINE_EXCEEDED -> 504;
      default -> 500;
    };
  }
}
