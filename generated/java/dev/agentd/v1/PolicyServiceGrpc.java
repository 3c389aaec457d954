package dev.agentd.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * An operator's own policy service. agentd does not serve it: agentd calls
 * it, as a client, for every guardrail check of kind `policy_service`
 * (docs/policy-service.md), and an operator's team implements it in any
 * language (clients/go/policyexample is a Go example). One unary call per
 * check: the point, the text (and, for a tool call, its arguments) and whose
 * they are; the answer allows, redacts spans or blocks. agentd waits at most
 * the check's `timeout_ms` (the call's deadline); an answer it cannot use, an
 * error status or no answer in time count as the service being unavailable,
 * and the check's `fail` setting (open or closed) decides.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: agentd/v1/guardrails.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class PolicyServiceGrpc {

  private PolicyServiceGrpc() {}

  public static final String SERVICE_NAME = "agentd.v1.PolicyService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.PolicyCheckRequest,
      dev.agentd.v1.PolicyCheckResponse> getCheckMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Check",
      requestType = dev.agentd.v1.PolicyCheckRequest.class,
      responseType = dev.agentd.v1.PolicyCheckResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.PolicyCheckRequest,
      dev.agentd.v1.PolicyCheckResponse> getCheckMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.PolicyCheckRequest, dev.agentd.v1.PolicyCheckResponse> getCheckMethod;
    if ((getCheckMethod = PolicyServiceGrpc.getCheckMethod) == null) {
      synchronized (PolicyServiceGrpc.class) {
        if ((getCheckMethod = PolicyServiceGrpc.getCheckMethod) == null) {
          PolicyServiceGrpc.getCheckMethod = getCheckMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.PolicyCheckRequest, dev.agentd.v1.PolicyCheckResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Check"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.PolicyCheckRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.PolicyCheckResponse.getDefaultInstance()))
              .setSchemaDescriptor(new PolicyServiceMethodDescriptorSupplier("Check"))
              .build();
        }
      }
    }
    return getCheckMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static PolicyServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PolicyServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PolicyServiceStub>() {
        @java.lang.Override
        public PolicyServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PolicyServiceStub(channel, callOptions);
        }
      };
    return PolicyServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static PolicyServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PolicyServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PolicyServiceBlockingStub>() {
        @java.lang.Override
        public PolicyServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PolicyServiceBlockingStub(channel, callOptions);
        }
      };
    return PolicyServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static PolicyServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<PolicyServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<PolicyServiceFutureStub>() {
        @java.lang.Override
        public PolicyServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new PolicyServiceFutureStub(channel, callOptions);
        }
      };
    return PolicyServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * An operator's own policy service. agentd does not serve it: agentd calls
   * it, as a client, for every guardrail check of kind `policy_service`
   * (docs/policy-service.md), and an operator's team implements it in any
   * language (clients/go/policyexample is a Go example). One unary call per
   * check: the point, the text (and, for a tool call, its arguments) and whose
   * they are; the answer allows, redacts spans or blocks. agentd waits at most
   * the check's `timeout_ms` (the call's deadline); an answer it cannot use, an
   * error status or no answer in time count as the service being unavailable,
   * and the check's `fail` setting (open or closed) decides.
   * </pre>
   */
  public static abstract class PolicyServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Decide on one text at one point of one task. Called once per check and
     * text; agentd may cache the decision (the check's `cache_seconds`) for the
     * same check, point, text, arguments, tenant, agent, user and tool.
     * </pre>
     */
    public void check(dev.agentd.v1.PolicyCheckRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.PolicyCheckResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCheckMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getCheckMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.PolicyCheckRequest,
                dev.agentd.v1.PolicyCheckResponse>(
                  this, METHODID_CHECK)))
          .build();
    }
  }

  /**
   * <pre>
   * An operator's own policy service. agentd does not serve it: agentd calls
   * it, as a client, for every guardrail check of kind `policy_service`
   * (docs/policy-service.md), and an operator's team implements it in any
   * language (clients/go/policyexample is a Go example). One unary call per
   * check: the point, the text (and, for a tool call, its arguments) and whose
   * they are; the answer allows, redacts spans or blocks. agentd waits at most
   * the check's `timeout_ms` (the call's deadline); an answer it cannot use, an
   * error status or no answer in time count as the service being unavailable,
   * and the check's `fail` setting (open or closed) decides.
   * </pre>
   */
  public static final class PolicyServiceStub extends io.grpc.stub.AbstractAsyncStub<PolicyServiceStub> {
    private PolicyServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PolicyServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PolicyServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Decide on one text at one point of one task. Called once per check and
     * text; agentd may cache the decision (the check's `cache_seconds`) for the
     * same check, point, text, arguments, tenant, agent, user and tool.
     * </pre>
     */
    public void check(dev.agentd.v1.PolicyCheckRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.PolicyCheckResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCheckMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * An operator's own policy service. agentd does not serve it: agentd calls
   * it, as a client, for every guardrail check of kind `policy_service`
   * (docs/policy-service.md), and an operator's team implements it in any
   * language (clients/go/policyexample is a Go example). One unary call per
   * check: the point, the text (and, for a tool call, its arguments) and whose
   * they are; the answer allows, redacts spans or blocks. agentd waits at most
   * the check's `timeout_ms` (the call's deadline); an answer it cannot use, an
   * error status or no answer in time count as the service being unavailable,
   * and the check's `fail` setting (open or closed) decides.
   * </pre>
   */
  public static final class PolicyServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<PolicyServiceBlockingStub> {
    private PolicyServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PolicyServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PolicyServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Decide on one text at one point of one task. Called once per check and
     * text; agentd may cache the decision (the check's `cache_seconds`) for the
     * same check, point, text, arguments, tenant, agent, user and tool.
     * </pre>
     */
    public dev.agentd.v1.PolicyCheckResponse check(dev.agentd.v1.PolicyCheckRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCheckMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * An operator's own policy service. agentd does not serve it: agentd calls
   * it, as a client, for every guardrail check of kind `policy_service`
   * (docs/policy-service.md), and an operator's team implements it in any
   * language (clients/go/policyexample is a Go example). One unary call per
   * check: the point, the text (and, for a tool call, its arguments) and whose
   * they are; the answer allows, redacts spans or blocks. agentd waits at most
   * the check's `timeout_ms` (the call's deadline); an answer it cannot use, an
   * error status or no answer in time count as the service being unavailable,
   * and the check's `fail` setting (open or closed) decides.
   * </pre>
   */
  public static final class PolicyServiceFutureStub extends io.grpc.stub.AbstractFutureStub<PolicyServiceFutureStub> {
    private PolicyServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected PolicyServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new PolicyServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Decide on one text at one point of one task. Called once per check and
     * text; agentd may cache the decision (the check's `cache_seconds`) for the
     * same check, point, text, arguments, tenant, agent, user and tool.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.PolicyCheckResponse> check(
        dev.agentd.v1.PolicyCheckRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCheckMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CHECK = 0;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final PolicyServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(PolicyServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_CHECK:
          serviceImpl.check((dev.agentd.v1.PolicyCheckRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.PolicyCheckResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  private static abstract class PolicyServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    PolicyServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.agentd.v1.GuardrailsProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("PolicyService");
    }
  }

  private static final class PolicyServiceFileDescriptorSupplier
      extends PolicyServiceBaseDescriptorSupplier {
    PolicyServiceFileDescriptorSupplier() {}
  }

  private static final class PolicyServiceMethodDescriptorSupplier
      extends PolicyServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    PolicyServiceMethodDescriptorSupplier(String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (PolicyServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new PolicyServiceFileDescriptorSupplier())
              .addMethod(getCheckMethod())
              .build();
        }
      }
    }
    return result;
  }
}
