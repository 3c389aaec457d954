package dev.agentd.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Inbound triggers start an agent's task when another system delivers an
 * event: an HTTP POST to `/v1/triggers/&lt;trigger id&gt;` on the HTTP address,
 * signed the Standard Webhooks way with the trigger's secret (headers
 * `webhook-id`, `webhook-timestamp`, `webhook-signature`). A delivery whose
 * signature does not verify, or whose timestamp is outside
 * AGENTD_TRIGGER_TOLERANCE_SECONDS of the server's clock, is refused (401)
 * and starts nothing; a delivery is idempotent by `webhook-id` (a re-sent one
 * answers the same task). The body (JSON, or text) becomes the task's
 * context; the answer is `{"task_id": …}` (202). Operator or admin role.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: agentd/v1/schedules.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class TriggerServiceGrpc {

  private TriggerServiceGrpc() {}

  public static final String SERVICE_NAME = "agentd.v1.TriggerService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CreateTriggerRequest,
      dev.agentd.v1.Trigger> getCreateTriggerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateTrigger",
      requestType = dev.agentd.v1.CreateTriggerRequest.class,
      responseType = dev.agentd.v1.Trigger.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CreateTriggerRequest,
      dev.agentd.v1.Trigger> getCreateTriggerMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CreateTriggerRequest, dev.agentd.v1.Trigger> getCreateTriggerMethod;
    if ((getCreateTriggerMethod = TriggerServiceGrpc.getCreateTriggerMethod) == null) {
      synchronized (TriggerServiceGrpc.class) {
        if ((getCreateTriggerMethod = TriggerServiceGrpc.getCreateTriggerMethod) == null) {
          TriggerServiceGrpc.getCreateTriggerMethod = getCreateTriggerMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CreateTriggerRequest, dev.agentd.v1.Trigger>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateTrigger"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CreateTriggerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Trigger.getDefaultInstance()))
              .setSchemaDescriptor(new TriggerServiceMethodDescriptorSupplier("CreateTrigger"))
              .build();
        }
      }
    }
    return getCreateTriggerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetTriggerRequest,
      dev.agentd.v1.Trigger> getGetTriggerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetTrigger",
      requestType = dev.agentd.v1.GetTriggerRequest.class,
      responseType = dev.agentd.v1.Trigger.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetTriggerRequest,
      dev.agentd.v1.Trigger> getGetTriggerMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetTriggerRequest, dev.agentd.v1.Trigger> getGetTriggerMethod;
    if ((getGetTriggerMethod = TriggerServiceGrpc.getGetTriggerMethod) == null) {
      synchronized (TriggerServiceGrpc.class) {
        if ((getGetTriggerMethod = TriggerServiceGrpc.getGetTriggerMethod) == null) {
          TriggerServiceGrpc.getGetTriggerMethod = getGetTriggerMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetTriggerRequest, dev.agentd.v1.Trigger>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetTrigger"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetTriggerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Trigger.getDefaultInstance()))
              .setSchemaDescriptor(new TriggerServiceMethodDescriptorSupplier("GetTrigger"))
              .build();
        }
      }
    }
    return getGetTriggerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListTriggersRequest,
      dev.agentd.v1.ListTriggersResponse> getListTriggersMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTriggers",
      requestType = dev.agentd.v1.ListTriggersRequest.class,
      responseType = dev.agentd.v1.ListTriggersResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListTriggersRequest,
      dev.agentd.v1.ListTriggersResponse> getListTriggersMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListTriggersRequest, dev.agentd.v1.ListTriggersResponse> getListTriggersMethod;
    if ((getListTriggersMethod = TriggerServiceGrpc.getListTriggersMethod) == null) {
      synchronized (TriggerServiceGrpc.class) {
        if ((getListTriggersMethod = TriggerServiceGrpc.getListTriggersMethod) == null) {
          TriggerServiceGrpc.getListTriggersMethod = getListTriggersMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListTriggersRequest, dev.agentd.v1.ListTriggersResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTriggers"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListTriggersRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListTriggersResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TriggerServiceMethodDescriptorSupplier("ListTriggers"))
              .build();
        }
      }
    }
    return getListTriggersMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteTriggerRequest,
      dev.agentd.v1.DeleteTriggerResponse> getDeleteTriggerMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteTrigger",
      requestType = dev.agentd.v1.DeleteTriggerRequest.class,
      responseType = dev.agentd.v1.DeleteTriggerResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteTriggerRequest,
      dev.agentd.v1.DeleteTriggerResponse> getDeleteTriggerMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteTriggerRequest, dev.agentd.v1.DeleteTriggerResponse> getDeleteTriggerMethod;
    if ((getDeleteTriggerMethod = TriggerServiceGrpc.getDeleteTriggerMethod) == null) {
      synchronized (TriggerServiceGrpc.class) {
        if ((getDeleteTriggerMethod = TriggerServiceGrpc.getDeleteTriggerMethod) == null) {
          TriggerServiceGrpc.getDeleteTriggerMethod = getDeleteTriggerMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteTriggerRequest, dev.agentd.v1.DeleteTriggerResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteTrigger"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteTriggerRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteTriggerResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TriggerServiceMethodDescriptorSupplier("DeleteTrigger"))
              .build();
        }
      }
    }
    return getDeleteTriggerMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.RotateTriggerSecretRequest,
      dev.agentd.v1.Trigger> getRotateTriggerSecretMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RotateTriggerSecret",
      requestType = dev.agentd.v1.RotateTriggerSecretRequest.class,
      responseType = dev.agentd.v1.Trigger.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.RotateTriggerSecretRequest,
      dev.agentd.v1.Trigger> getRotateTriggerSecretMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.RotateTriggerSecretRequest, dev.agentd.v1.Trigger> getRotateTriggerSecretMethod;
    if ((getRotateTriggerSecretMethod = TriggerServiceGrpc.getRotateTriggerSecretMethod) == null) {
      synchronized (TriggerServiceGrpc.class) {
        if ((getRotateTriggerSecretMethod = TriggerServiceGrpc.getRotateTriggerSecretMethod) == null) {
          TriggerServiceGrpc.getRotateTriggerSecretMethod = getRotateTriggerSecretMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.RotateTriggerSecretRequest, dev.agentd.v1.Trigger>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RotateTriggerSecret"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.RotateTriggerSecretRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Trigger.getDefaultInstance()))
              .setSchemaDescriptor(new TriggerServiceMethodDescriptorSupplier("RotateTriggerSecret"))
              .build();
        }
      }
    }
    return getRotateTriggerSecretMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static TriggerServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TriggerServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TriggerServiceStub>() {
        @java.lang.Override
        public TriggerServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TriggerServiceStub(channel, callOptions);
        }
      };
    return TriggerServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static TriggerServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TriggerServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TriggerServiceBlockingStub>() {
        @java.lang.Override
        public TriggerServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TriggerServiceBlockingStub(channel, callOptions);
        }
      };
    return TriggerServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static TriggerServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TriggerServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TriggerServiceFutureStub>() {
        @java.lang.Override
        public TriggerServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TriggerServiceFutureStub(channel, callOptions);
        }
      };
    return TriggerServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Inbound triggers start an agent's task when another system delivers an
   * event: an HTTP POST to `/v1/triggers/&lt;trigger id&gt;` on the HTTP address,
   * signed the Standard Webhooks way with the trigger's secret (headers
   * `webhook-id`, `webhook-timestamp`, `webhook-signature`). A delivery whose
   * signature does not verify, or whose timestamp is outside
   * AGENTD_TRIGGER_TOLERANCE_SECONDS of the server's clock, is refused (401)
   * and starts nothing; a delivery is idempotent by `webhook-id` (a re-sent one
   * answers the same task). The body (JSON, or text) becomes the task's
   * context; the answer is `{"task_id": …}` (202). Operator or admin role.
   * </pre>
   */
  public static abstract class TriggerServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * The answer carries the signing secret once.
     * </pre>
     */
    public void createTrigger(dev.agentd.v1.CreateTriggerRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Trigger> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateTriggerMethod(), responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`TRIGGER_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getTrigger(dev.agentd.v1.GetTriggerRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Trigger> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetTriggerMethod(), responseObserver);
    }

    /**
     */
    public void listTriggers(dev.agentd.v1.ListTriggersRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListTriggersResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTriggersMethod(), responseObserver);
    }

    /**
     */
    public void deleteTrigger(dev.agentd.v1.DeleteTriggerRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteTriggerResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteTriggerMethod(), responseObserver);
    }

    /**
     * <pre>
     * A new signing secret (answered once); the old one keeps verifying for
     * `previous_secret_ttl` (unset: an hour) so senders can switch.
     * </pre>
     */
    public void rotateTriggerSecret(dev.agentd.v1.RotateTriggerSecretRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Trigger> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRotateTriggerSecretMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getCreateTriggerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CreateTriggerRequest,
                dev.agentd.v1.Trigger>(
                  this, METHODID_CREATE_TRIGGER)))
          .addMethod(
            getGetTriggerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetTriggerRequest,
                dev.agentd.v1.Trigger>(
                  this, METHODID_GET_TRIGGER)))
          .addMethod(
            getListTriggersMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListTriggersRequest,
                dev.agentd.v1.ListTriggersResponse>(
                  this, METHODID_LIST_TRIGGERS)))
          .addMethod(
            getDeleteTriggerMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteTriggerRequest,
                dev.agentd.v1.DeleteTriggerResponse>(
                  this, METHODID_DELETE_TRIGGER)))
          .addMethod(
            getRotateTriggerSecretMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.RotateTriggerSecretRequest,
                dev.agentd.v1.Trigger>(
                  this, METHODID_ROTATE_TRIGGER_SECRET)))
          .build();
    }
  }

  /**
   * <pre>
   * Inbound triggers start an agent's task when another system delivers an
   * event: an HTTP POST to `/v1/triggers/&lt;trigger id&gt;` on the HTTP address,
   * signed the Standard Webhooks way with the trigger's secret (headers
   * `webhook-id`, `webhook-timestamp`, `webhook-signature`). A delivery whose
   * signature does not verify, or whose timestamp is outside
   * AGENTD_TRIGGER_TOLERANCE_SECONDS of the server's clock, is refused (401)
   * and starts nothing; a delivery is idempotent by `webhook-id` (a re-sent one
   * answers the same task). The body (JSON, or text) becomes the task's
   * context; the answer is `{"task_id": …}` (202). Operator or admin role.
   * </pre>
   */
  public static final class TriggerServiceStub extends io.grpc.stub.AbstractAsyncStub<TriggerServiceStub> {
    private TriggerServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TriggerServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TriggerServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * The answer carries the signing secret once.
     * </pre>
     */
    public void createTrigger(dev.agentd.v1.CreateTriggerRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Trigger> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateTriggerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`TRIGGER_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getTrigger(dev.agentd.v1.GetTriggerRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Trigger> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetTriggerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     */
    public void listTriggers(dev.agentd.v1.ListTriggersRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListTriggersResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTriggersMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     */
    public void deleteTrigger(dev.agentd.v1.DeleteTriggerRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteTriggerResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteTriggerMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * A new signing secret (answered once); the old one keeps verifying for
     * `previous_secret_ttl` (unset: an hour) so senders can switch.
     * </pre>
     */
    public void rotateTriggerSecret(dev.agentd.v1.RotateTriggerSecretRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Trigger> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRotateTriggerSecretMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * Inbound triggers start an agent's task when another system delivers an
   * event: an HTTP POST to `/v1/triggers/&lt;trigger id&gt;` on the HTTP address,
   * signed the Standard Webhooks way with the trigger's secret (headers
   * `webhook-id`, `webhook-timestamp`, `webhook-signature`). A delivery whose
   * signature does not verify, or whose timestamp is outside
   * AGENTD_TRIGGER_TOLERANCE_SECONDS of the server's clock, is refused (401)
   * and starts nothing; a delivery is idempotent by `webhook-id` (a re-sent one
   * answers the same task). The body (JSON, or text) becomes the task's
   * context; the answer is `{"task_id": …}` (202). Operator or admin role.
   * </pre>
   */
  public static final class TriggerServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<TriggerServiceBlockingStub> {
    private TriggerServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TriggerServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TriggerServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * The answer carries the signing secret once.
     * </pre>
     */
    public dev.agentd.v1.Trigger createTrigger(dev.agentd.v1.CreateTriggerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateTriggerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`TRIGGER_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public dev.agentd.v1.Trigger getTrigger(dev.agentd.v1.GetTriggerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetTriggerMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.agentd.v1.ListTriggersResponse listTriggers(dev.agentd.v1.ListTriggersRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTriggersMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.agentd.v1.DeleteTriggerResponse deleteTrigger(dev.agentd.v1.DeleteTriggerRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteTriggerMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A new signing secret (answered once); the old one keeps verifying for
     * `previous_secret_ttl` (unset: an hour) so senders can switch.
     * </pre>
     */
    public dev.agentd.v1.Trigger rotateTriggerSecret(dev.agentd.v1.RotateTriggerSecretRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRotateTriggerSecretMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * Inbound triggers start an agent's task when another system delivers an
   * event: an HTTP POST to `/v1/triggers/&lt;trigger id&gt;` on the HTTP address,
   * signed the Standard Webhooks way with the trigger's secret (headers
   * `webhook-id`, `webhook-timestamp`, `webhook-signature`). A delivery whose
   * signature does not verify, or whose timestamp is outside
   * AGENTD_TRIGGER_TOLERANCE_SECONDS of the server's clock, is refused (401)
   * and starts nothing; a delivery is idempotent by `webhook-id` (a re-sent one
   * answers the same task). The body (JSON, or text) becomes the task's
   * context; the answer is `{"task_id": …}` (202). Operator or admin role.
   * </pre>
   */
  public static final class TriggerServiceFutureStub extends io.grpc.stub.AbstractFutureStub<TriggerServiceFutureStub> {
    private TriggerServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TriggerServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TriggerServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * The answer carries the signing secret once.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Trigger> createTrigger(
        dev.agentd.v1.CreateTriggerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateTriggerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`TRIGGER_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Trigger> getTrigger(
        dev.agentd.v1.GetTriggerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetTriggerMethod(), getCallOptions()), request);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListTriggersResponse> listTriggers(
        dev.agentd.v1.ListTriggersRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTriggersMethod(), getCallOptions()), request);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteTriggerResponse> deleteTrigger(
        dev.agentd.v1.DeleteTriggerRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteTriggerMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * A new signing secret (answered once); the old one keeps verifying for
     * `previous_secret_ttl` (unset: an hour) so senders can switch.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Trigger> rotateTriggerSecret(
        dev.agentd.v1.RotateTriggerSecretRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRotateTriggerSecretMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_TRIGGER = 0;
  private static final int METHODID_GET_TRIGGER = 1;
  private static final int METHODID_LIST_TRIGGERS = 2;
  private static final int METHODID_DELETE_TRIGGER = 3;
  private static final int METHODID_ROTATE_TRIGGER_SECRET = 4;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final TriggerServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(TriggerServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_CREATE_TRIGGER:
          serviceImpl.createTrigger((dev.agentd.v1.CreateTriggerRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Trigger>) responseObserver);
          break;
        case METHODID_GET_TRIGGER:
          serviceImpl.getTrigger((dev.agentd.v1.GetTriggerRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Trigger>) responseObserver);
          break;
        case METHODID_LIST_TRIGGERS:
          serviceImpl.listTriggers((dev.agentd.v1.ListTriggersRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListTriggersResponse>) responseObserver);
          break;
        case METHODID_DELETE_TRIGGER:
          serviceImpl.deleteTrigger((dev.agentd.v1.DeleteTriggerRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteTriggerResponse>) responseObserver);
          break;
        case METHODID_ROTATE_TRIGGER_SECRET:
          serviceImpl.rotateTriggerSecret((dev.agentd.v1.RotateTriggerSecretRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Trigger>) responseObserver);
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

  private static abstract class TriggerServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    TriggerServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.agentd.v1.SchedulesProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("TriggerService");
    }
  }

  private static final class TriggerServiceFileDescriptorSupplier
      extends TriggerServiceBaseDescriptorSupplier {
    TriggerServiceFileDescriptorSupplier() {}
  }

  private static final class TriggerServiceMethodDescriptorSupplier
      extends TriggerServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    TriggerServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (TriggerServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new TriggerServiceFileDescriptorSupplier())
              .addMethod(getCreateTriggerMethod())
              .addMethod(getGetTriggerMethod())
              .addMethod(getListTriggersMethod())
              .addMethod(getDeleteTriggerMethod())
              .addMethod(getRotateTriggerSecretMethod())
              .build();
        }
      }
    }
    return result;
  }
}
