// Command policyexample is an operator's policy service for agentd's
// guardrails (agentd.v1.PolicyService, protos/agentd/v1/guardrails.proto):
// agentd calls it for every check of kind `policy_service`. It blocks a text
// holding the -block word, redacts every -redact word (spans in code points,
// as the contract counts them) and allows the rest.
//
//	policyexample -listen 127.0.0.1:50061 -block forbidden -redact 1234
//
// It prints `listening=HOST:PORT` once it serves (with port 0, the port it
// was given) and one `decision=...` line per call; it stops on SIGTERM or
// SIGINT.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	agentdv1 "agentd.dev/gen/agentd/v1"
	"google.golang.org/grpc"
)

var (
	listen = flag.String("listen", "127.0.0.1:50061", "host:port to serve on")
	block  = flag.String("block", "forbidden", "block a text holding this word")
	redact = flag.String("redact", "", "redact every occurrence of this word (none when empty)")
)

type policy struct {
	agentdv1.UnimplementedPolicyServiceServer
	block, redact string
}

// Check decides on one text: block, redact or allow.
func (p *policy) Check(ctx context.Context, req *agentdv1.PolicyCheckRequest) (*agentdv1.PolicyCheckResponse, error) {
	answer := p.decide(req.GetText())
	fmt.Printf("decision=%s check=%s point=%s tenant=%s\n",
		answer.GetDecision(), req.GetCheck(), req.GetPoint(), req.GetTenant())
	return answer, nil
}

func (p *policy) decide(text string) *agentdv1.PolicyCheckResponse {
	if p.block != "" && strings.Contains(text, p.block) {
		return &agentdv1.PolicyCheckResponse{
			Decision: agentdv1.PolicyDecision_POLICY_DECISION_BLOCK,
			Reason:   fmt.Sprintf("the text mentions %q", p.block),
			Rule:     "example:block-word",
		}
	}
	if spans := wordSpans(text, p.redact); len(spans) > 0 {
		return &agentdv1.PolicyCheckResponse{
			Decision: agentdv1.PolicyDecision_POLICY_DECISION_REDACT,
			Spans:    spans,
			Reason:   fmt.Sprintf("%q is redacted", p.redact),
			Rule:     "example:redact-word",
		}
	}
	return &agentdv1.PolicyCheckResponse{Decision: agentdv1.PolicyDecision_POLICY_DECISION_ALLOW}
}

// wordSpans finds word in text, in code points (runes), not bytes: the
// contract counts spans in Unicode code points.
func wordSpans(text, word string) []*agentdv1.PolicySpan {
	runes, target := []rune(text), []rune(word)
	var spans []*agentdv1.PolicySpan
	if len(target) == 0 {
		return spans
	}
	for i := 0; i+len(target) <= len(runes); i++ {
		if string(runes[i:i+len(target)]) == word {
			spans = append(spans, &agentdv1.PolicySpan{
				Start: int32(i), End: int32(i + len(target)), Label: "redacted_word",
			})
			i += len(target) - 1
		}
	}
	return spans
}

func main() {
	flag.Parse()
	lis, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(os.Stderr, "policyexample: %v\n", err)
		os.Exit(1)
	}
	server := grpc.NewServer()
	agentdv1.RegisterPolicyServiceServer(server, &policy{block: *block, redact: *redact})
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		server.GracefulStop()
	}()
	fmt.Printf("listening=%s\n", lis.Addr())
	if err := server.Serve(lis); err != nil {
		fmt.Fprintf(os.Stderr, "policyexample: %v\n", err)
		os.Exit(1)
	}
}
