package dev.agentd.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Evaluation runs: a dataset's cases run as an agent version, each answer
 * graded, the run compared with a baseline run and held to a gate. A version
 * whose run passed its gate may be promoted (AgentService.PromoteAgentVersion).
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: agentd/v1/evals.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class EvalServiceGrpc {

  private EvalServiceGrpc() {}

  public static final String SERVICE_NAME = "agentd.v1.EvalService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CreateDatasetRequest,
      dev.agentd.v1.Dataset> getCreateDatasetMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateDataset",
      requestType = dev.agentd.v1.CreateDatasetRequest.class,
      responseType = dev.agentd.v1.Dataset.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CreateDatasetRequest,
      dev.agentd.v1.Dataset> getCreateDatasetMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CreateDatasetRequest, dev.agentd.v1.Dataset> getCreateDatasetMethod;
    if ((getCreateDatasetMethod = EvalServiceGrpc.getCreateDatasetMethod) == null) {
      synchronized (EvalServiceGrpc.class) {
        if ((getCreateDatasetMethod = EvalServiceGrpc.getCreateDatasetMethod) == null) {
          EvalServiceGrpc.getCreateDatasetMethod = getCreateDatasetMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CreateDatasetRequest, dev.agentd.v1.Dataset>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateDataset"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CreateDatasetRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Dataset.getDefaultInstance()))
              .setSchemaDescriptor(new EvalServiceMethodDescriptorSupplier("CreateDataset"))
              .build();
        }
      }
    }
    return getCreateDatasetMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetDatasetRequest,
      dev.agentd.v1.Dataset> getGetDatasetMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetDataset",
      requestType = dev.agentd.v1.GetDatasetRequest.class,
      responseType = dev.agentd.v1.Dataset.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetDatasetRequest,
      dev.agentd.v1.Dataset> getGetDatasetMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetDatasetRequest, dev.agentd.v1.Dataset> getGetDatasetMethod;
    if ((getGetDatasetMethod = EvalServiceGrpc.getGetDatasetMethod) == null) {
      synchronized (EvalServiceGrpc.class) {
        if ((getGetDatasetMethod = EvalServiceGrpc.getGetDatasetMethod) == null) {
          EvalServiceGrpc.getGetDatasetMethod = getGetDatasetMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetDatasetRequest, dev.agentd.v1.Dataset>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetDataset"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetDatasetRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Dataset.getDefaultInstance()))
              .setSchemaDescriptor(new EvalServiceMethodDescriptorSupplier("GetDataset"))
              .build();
        }
      }
    }
    return getGetDatasetMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListDatasetsRequest,
      dev.agentd.v1.ListDatasetsResponse> getListDatasetsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListDatasets",
      requestType = dev.agentd.v1.ListDatasetsRequest.class,
      responseType = dev.agentd.v1.ListDatasetsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListDatasetsRequest,
      dev.agentd.v1.ListDatasetsResponse> getListDatasetsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListDatasetsRequest, dev.agentd.v1.ListDatasetsResponse> getListDatasetsMethod;
    if ((getListDatasetsMethod = EvalServiceGrpc.getListDatasetsMethod) == null) {
      synchronized (EvalServiceGrpc.class) {
        if ((getListDatasetsMethod = EvalServiceGrpc.getListDatasetsMethod) == null) {
          EvalServiceGrpc.getListDatasetsMethod = getListDatasetsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListDatasetsRequest, dev.agentd.v1.ListDatasetsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListDatasets"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListDatasetsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListDatasetsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvalServiceMethodDescriptorSupplier("ListDatasets"))
              .build();
        }
      }
    }
    return getListDatasetsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteDatasetRequest,
      dev.agentd.v1.DeleteDatasetResponse> getDeleteDatasetMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteDataset",
      requestType = dev.agentd.v1.DeleteDatasetRequest.class,
      responseType = dev.agentd.v1.DeleteDatasetResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteDatasetRequest,
      dev.agentd.v1.DeleteDatasetResponse> getDeleteDatasetMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteDatasetRequest, dev.agentd.v1.DeleteDatasetResponse> getDeleteDatasetMethod;
    if ((getDeleteDatasetMethod = EvalServiceGrpc.getDeleteDatasetMethod) == null) {
      synchronized (EvalServiceGrpc.class) {
        if ((getDeleteDatasetMethod = EvalServiceGrpc.getDeleteDatasetMethod) == null) {
          EvalServiceGrpc.getDeleteDatasetMethod = getDeleteDatasetMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteDatasetRequest, dev.agentd.v1.DeleteDatasetResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteDataset"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteDatasetRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteDatasetResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvalServiceMethodDescriptorSupplier("DeleteDataset"))
              .build();
        }
      }
    }
    return getDeleteDatasetMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.RunEvalRequest,
      dev.agentd.v1.EvalRun> getRunEvalMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RunEval",
      requestType = dev.agentd.v1.RunEvalRequest.class,
      responseType = dev.agentd.v1.EvalRun.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.RunEvalRequest,
      dev.agentd.v1.EvalRun> getRunEvalMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.RunEvalRequest, dev.agentd.v1.EvalRun> getRunEvalMethod;
    if ((getRunEvalMethod = EvalServiceGrpc.getRunEvalMethod) == null) {
      synchronized (EvalServiceGrpc.class) {
        if ((getRunEvalMethod = EvalServiceGrpc.getRunEvalMethod) == null) {
          EvalServiceGrpc.getRunEvalMethod = getRunEvalMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.RunEvalRequest, dev.agentd.v1.EvalRun>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RunEval"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.RunEvalRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.EvalRun.getDefaultInstance()))
              .setSchemaDescriptor(new EvalServiceMethodDescriptorSupplier("RunEval"))
              .build();
        }
      }
    }
    return getRunEvalMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetEvalRunRequest,
      dev.agentd.v1.EvalRun> getGetEvalRunMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetEvalRun",
      requestType = dev.agentd.v1.GetEvalRunRequest.class,
      responseType = dev.agentd.v1.EvalRun.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetEvalRunRequest,
      dev.agentd.v1.EvalRun> getGetEvalRunMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetEvalRunRequest, dev.agentd.v1.EvalRun> getGetEvalRunMethod;
    if ((getGetEvalRunMethod = EvalServiceGrpc.getGetEvalRunMethod) == null) {
      synchronized (EvalServiceGrpc.class) {
        if ((getGetEvalRunMethod = EvalServiceGrpc.getGetEvalRunMethod) == null) {
          EvalServiceGrpc.getGetEvalRunMethod = getGetEvalRunMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetEvalRunRequest, dev.agentd.v1.EvalRun>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetEvalRun"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetEvalRunRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.EvalRun.getDefaultInstance()))
              .setSchemaDescriptor(new EvalServiceMethodDescriptorSupplier("GetEvalRun"))
              .build();
        }
      }
    }
    return getGetEvalRunMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListEvalRunsRequest,
      dev.agentd.v1.ListEvalRunsResponse> getListEvalRunsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListEvalRuns",
      requestType = dev.agentd.v1.ListEvalRunsRequest.class,
      responseType = dev.agentd.v1.ListEvalRunsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListEvalRunsRequest,
      dev.agentd.v1.ListEvalRunsResponse> getListEvalRunsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListEvalRunsRequest, dev.agentd.v1.ListEvalRunsResponse> getListEvalRunsMethod;
    if ((getListEvalRunsMethod = EvalServiceGrpc.getListEvalRunsMethod) == null) {
      synchronized (EvalServiceGrpc.class) {
        if ((getListEvalRunsMethod = EvalServiceGrpc.getListEvalRunsMethod) == null) {
          EvalServiceGrpc.getListEvalRunsMethod = getListEvalRunsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListEvalRunsRequest, dev.agentd.v1.ListEvalRunsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListEvalRuns"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListEvalRunsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListEvalRunsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new EvalServiceMethodDescriptorSupplier("ListEvalRuns"))
              .build();
        }
      }
    }
    return getListEvalRunsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static EvalServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvalServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvalServiceStub>() {
        @java.lang.Override
        public EvalServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvalServiceStub(channel, callOptions);
        }
      };
    return EvalServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static EvalServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvalServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvalServiceBlockingStub>() {
        @java.lang.Override
        public EvalServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvalServiceBlockingStub(channel, callOptions);
        }
      };
    return EvalServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static EvalServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<EvalServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<EvalServiceFutureStub>() {
        @java.lang.Override
        public EvalServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new EvalServiceFutureStub(channel, callOptions);
        }
      };
    return EvalServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Evaluation runs: a dataset's cases run as an agent version, each answer
   * graded, the run compared with a baseline run and held to a gate. A version
   * whose run passed its gate may be promoted (AgentService.PromoteAgentVersion).
   * </pre>
   */
  public static abstract class EvalServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Stores a dataset of the caller's tenant (operator or admin role).
     * INVALID_ARGUMENT naming the case and field of a malformed case or grader.
     * </pre>
     */
    public void createDataset(dev.agentd.v1.CreateDatasetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Dataset> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateDatasetMethod(), responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`DATASET_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getDataset(dev.agentd.v1.GetDatasetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Dataset> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetDatasetMethod(), responseObserver);
    }

    /**
     */
    public void listDatasets(dev.agentd.v1.ListDatasetsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListDatasetsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListDatasetsMethod(), responseObserver);
    }

    /**
     */
    public void deleteDataset(dev.agentd.v1.DeleteDatasetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteDatasetResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteDatasetMethod(), responseObserver);
    }

    /**
     * <pre>
     * Starts an evaluation run and answers at once (state RUNNING): its cases
     * run as tasks with bounded parallelism, through the same admission as any
     * task, labelled `agentd.eval_run` (ListTasks finds them). Poll GetEvalRun.
     * </pre>
     */
    public void runEval(dev.agentd.v1.RunEvalRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.EvalRun> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRunEvalMethod(), responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`EVAL_RUN_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getEvalRun(dev.agentd.v1.GetEvalRunRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.EvalRun> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetEvalRunMethod(), responseObserver);
    }

    /**
     * <pre>
     * Newest first.
     * </pre>
     */
    public void listEvalRuns(dev.agentd.v1.ListEvalRunsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListEvalRunsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListEvalRunsMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getCreateDatasetMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CreateDatasetRequest,
                dev.agentd.v1.Dataset>(
                  this, METHODID_CREATE_DATASET)))
          .addMethod(
            getGetDatasetMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetDatasetRequest,
                dev.agentd.v1.Dataset>(
                  this, METHODID_GET_DATASET)))
          .addMethod(
            getListDatasetsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListDatasetsRequest,
                dev.agentd.v1.ListDatasetsResponse>(
                  this, METHODID_LIST_DATASETS)))
          .addMethod(
            getDeleteDatasetMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteDatasetRequest,
                dev.agentd.v1.DeleteDatasetResponse>(
                  this, METHODID_DELETE_DATASET)))
          .addMethod(
            getRunEvalMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.RunEvalRequest,
                dev.agentd.v1.EvalRun>(
                  this, METHODID_RUN_EVAL)))
          .addMethod(
            getGetEvalRunMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetEvalRunRequest,
                dev.agentd.v1.EvalRun>(
                  this, METHODID_GET_EVAL_RUN)))
          .addMethod(
            getListEvalRunsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListEvalRunsRequest,
                dev.agentd.v1.ListEvalRunsResponse>(
                  this, METHODID_LIST_EVAL_RUNS)))
          .build();
    }
  }

  /**
   * <pre>
   * Evaluation runs: a dataset's cases run as an agent version, each answer
   * graded, the run compared with a baseline run and held to a gate. A version
   * whose run passed its gate may be promoted (AgentService.PromoteAgentVersion).
   * </pre>
   */
  public static final class EvalServiceStub extends io.grpc.stub.AbstractAsyncStub<EvalServiceStub> {
    private EvalServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvalServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvalServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Stores a dataset of the caller's tenant (operator or admin role).
     * INVALID_ARGUMENT naming the case and field of a malformed case or grader.
     * </pre>
     */
    public void createDataset(dev.agentd.v1.CreateDatasetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Dataset> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateDatasetMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`DATASET_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getDataset(dev.agentd.v1.GetDatasetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Dataset> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetDatasetMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     */
    public void listDatasets(dev.agentd.v1.ListDatasetsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListDatasetsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListDatasetsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     */
    public void deleteDataset(dev.agentd.v1.DeleteDatasetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteDatasetResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteDatasetMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Starts an evaluation run and answers at once (state RUNNING): its cases
     * run as tasks with bounded parallelism, through the same admission as any
     * task, labelled `agentd.eval_run` (ListTasks finds them). Poll GetEvalRun.
     * </pre>
     */
    public void runEval(dev.agentd.v1.RunEvalRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.EvalRun> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRunEvalMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`EVAL_RUN_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getEvalRun(dev.agentd.v1.GetEvalRunRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.EvalRun> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetEvalRunMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Newest first.
     * </pre>
     */
    public void listEvalRuns(dev.agentd.v1.ListEvalRunsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListEvalRunsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListEvalRunsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * Evaluation runs: a dataset's cases run as an agent version, each answer
   * graded, the run compared with a baseline run and held to a gate. A version
   * whose run passed its gate may be promoted (AgentService.PromoteAgentVersion).
   * </pre>
   */
  public static final class EvalServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<EvalServiceBlockingStub> {
    private EvalServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvalServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvalServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Stores a dataset of the caller's tenant (operator or admin role).
     * INVALID_ARGUMENT naming the case and field of a malformed case or grader.
     * </pre>
     */
    public dev.agentd.v1.Dataset createDataset(dev.agentd.v1.CreateDatasetRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateDatasetMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`DATASET_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public dev.agentd.v1.Dataset getDataset(dev.agentd.v1.GetDatasetRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetDatasetMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.agentd.v1.ListDatasetsResponse listDatasets(dev.agentd.v1.ListDatasetsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListDatasetsMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.agentd.v1.DeleteDatasetResponse deleteDataset(dev.agentd.v1.DeleteDatasetRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteDatasetMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Starts an evaluation run and answers at once (state RUNNING): its cases
     * run as tasks with bounded parallelism, through the same admission as any
     * task, labelled `agentd.eval_run` (ListTasks finds them). Poll GetEvalRun.
     * </pre>
     */
    public dev.agentd.v1.EvalRun runEval(dev.agentd.v1.RunEvalRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRunEvalMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`EVAL_RUN_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public dev.agentd.v1.EvalRun getEvalRun(dev.agentd.v1.GetEvalRunRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetEvalRunMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Newest first.
     * </pre>
     */
    public dev.agentd.v1.ListEvalRunsResponse listEvalRuns(dev.agentd.v1.ListEvalRunsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListEvalRunsMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * Evaluation runs: a dataset's cases run as an agent version, each answer
   * graded, the run compared with a baseline run and held to a gate. A version
   * whose run passed its gate may be promoted (AgentService.PromoteAgentVersion).
   * </pre>
   */
  public static final class EvalServiceFutureStub extends io.grpc.stub.AbstractFutureStub<EvalServiceFutureStub> {
    private EvalServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected EvalServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new EvalServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Stores a dataset of the caller's tenant (operator or admin role).
     * INVALID_ARGUMENT naming the case and field of a malformed case or grader.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Dataset> createDataset(
        dev.agentd.v1.CreateDatasetRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateDatasetMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`DATASET_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Dataset> getDataset(
        dev.agentd.v1.GetDatasetRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetDatasetMethod(), getCallOptions()), request);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListDatasetsResponse> listDatasets(
        dev.agentd.v1.ListDatasetsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListDatasetsMethod(), getCallOptions()), request);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteDatasetResponse> deleteDataset(
        dev.agentd.v1.DeleteDatasetRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteDatasetMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Starts an evaluation run and answers at once (state RUNNING): its cases
     * run as tasks with bounded parallelism, through the same admission as any
     * task, labelled `agentd.eval_run` (ListTasks finds them). Poll GetEvalRun.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.EvalRun> runEval(
        dev.agentd.v1.RunEvalRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRunEvalMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`EVAL_RUN_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.EvalRun> getEvalRun(
        dev.agentd.v1.GetEvalRunRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetEvalRunMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Newest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListEvalRunsResponse> listEvalRuns(
        dev.agentd.v1.ListEvalRunsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListEvalRunsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_DATASET = 0;
  private static final int METHODID_GET_DATASET = 1;
  private static final int METHODID_LIST_DATASETS = 2;
  private static final int METHODID_DELETE_DATASET = 3;
  private static final int METHODID_RUN_EVAL = 4;
  private static final int METHODID_GET_EVAL_RUN = 5;
  private static final int METHODID_LIST_EVAL_RUNS = 6;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final EvalServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(EvalServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_CREATE_DATASET:
          serviceImpl.createDataset((dev.agentd.v1.CreateDatasetRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Dataset>) responseObserver);
          break;
        case METHODID_GET_DATASET:
          serviceImpl.getDataset((dev.agentd.v1.GetDatasetRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Dataset>) responseObserver);
          break;
        case METHODID_LIST_DATASETS:
          serviceImpl.listDatasets((dev.agentd.v1.ListDatasetsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListDatasetsResponse>) responseObserver);
          break;
        case METHODID_DELETE_DATASET:
          serviceImpl.deleteDataset((dev.agentd.v1.DeleteDatasetRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteDatasetResponse>) responseObserver);
          break;
        case METHODID_RUN_EVAL:
          serviceImpl.runEval((dev.agentd.v1.RunEvalRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.EvalRun>) responseObserver);
          break;
        case METHODID_GET_EVAL_RUN:
          serviceImpl.getEvalRun((dev.agentd.v1.GetEvalRunRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.EvalRun>) responseObserver);
          break;
        case METHODID_LIST_EVAL_RUNS:
          serviceImpl.listEvalRuns((dev.agentd.v1.ListEvalRunsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListEvalRunsResponse>) responseObserver);
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

  private static abstract class EvalServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    EvalServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.agentd.v1.EvalsProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("EvalService");
    }
  }

  private static final class EvalServiceFileDescriptorSupplier
      extends EvalServiceBaseDescriptorSupplier {
    EvalServiceFileDescriptorSupplier() {}
  }

  private static final class EvalServiceMethodDescriptorSupplier
      extends EvalServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    EvalServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (EvalServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new EvalServiceFileDescriptorSupplier())
              .addMethod(getCreateDatasetMethod())
              .addMethod(getGetDatasetMethod())
              .addMethod(getListDatasetsMethod())
              .addMethod(getDeleteDatasetMethod())
              .addMethod(getRunEvalMethod())
              .addMethod(getGetEvalRunMethod())
              .addMethod(getListEvalRunsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
