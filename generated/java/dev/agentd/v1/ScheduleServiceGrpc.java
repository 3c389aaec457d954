package dev.agentd.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Schedules start an agent's tasks on its own time: by a cron expression in a
 * time zone, every N seconds, or once at an instant. Each due time starts
 * exactly one task across any number of replicas (a task id derived from the
 * schedule and the due time). A schedule runs as the principal that created
 * it, resolved again at every run: a revoked key or grant refuses the run
 * with the reason, and AGENTD_SCHEDULE_MAX_REFUSALS refusals in a row pause
 * the schedule. Operator or admin role to change schedules; any role of the
 * tenant to read them.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: agentd/v1/schedules.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class ScheduleServiceGrpc {

  private ScheduleServiceGrpc() {}

  public static final String SERVICE_NAME = "agentd.v1.ScheduleService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CreateScheduleRequest,
      dev.agentd.v1.Schedule> getCreateScheduleMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateSchedule",
      requestType = dev.agentd.v1.CreateScheduleRequest.class,
      responseType = dev.agentd.v1.Schedule.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CreateScheduleRequest,
      dev.agentd.v1.Schedule> getCreateScheduleMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CreateScheduleRequest, dev.agentd.v1.Schedule> getCreateScheduleMethod;
    if ((getCreateScheduleMethod = ScheduleServiceGrpc.getCreateScheduleMethod) == null) {
      synchronized (ScheduleServiceGrpc.class) {
        if ((getCreateScheduleMethod = ScheduleServiceGrpc.getCreateScheduleMethod) == null) {
          ScheduleServiceGrpc.getCreateScheduleMethod = getCreateScheduleMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CreateScheduleRequest, dev.agentd.v1.Schedule>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateSchedule"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CreateScheduleRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Schedule.getDefaultInstance()))
              .setSchemaDescriptor(new ScheduleServiceMethodDescriptorSupplier("CreateSchedule"))
              .build();
        }
      }
    }
    return getCreateScheduleMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetScheduleRequest,
      dev.agentd.v1.Schedule> getGetScheduleMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetSchedule",
      requestType = dev.agentd.v1.GetScheduleRequest.class,
      responseType = dev.agentd.v1.Schedule.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetScheduleRequest,
      dev.agentd.v1.Schedule> getGetScheduleMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetScheduleRequest, dev.agentd.v1.Schedule> getGetScheduleMethod;
    if ((getGetScheduleMethod = ScheduleServiceGrpc.getGetScheduleMethod) == null) {
      synchronized (ScheduleServiceGrpc.class) {
        if ((getGetScheduleMethod = ScheduleServiceGrpc.getGetScheduleMethod) == null) {
          ScheduleServiceGrpc.getGetScheduleMethod = getGetScheduleMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetScheduleRequest, dev.agentd.v1.Schedule>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetSchedule"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetScheduleRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Schedule.getDefaultInstance()))
              .setSchemaDescriptor(new ScheduleServiceMethodDescriptorSupplier("GetSchedule"))
              .build();
        }
      }
    }
    return getGetScheduleMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListSchedulesRequest,
      dev.agentd.v1.ListSchedulesResponse> getListSchedulesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListSchedules",
      requestType = dev.agentd.v1.ListSchedulesRequest.class,
      responseType = dev.agentd.v1.ListSchedulesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListSchedulesRequest,
      dev.agentd.v1.ListSchedulesResponse> getListSchedulesMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListSchedulesRequest, dev.agentd.v1.ListSchedulesResponse> getListSchedulesMethod;
    if ((getListSchedulesMethod = ScheduleServiceGrpc.getListSchedulesMethod) == null) {
      synchronized (ScheduleServiceGrpc.class) {
        if ((getListSchedulesMethod = ScheduleServiceGrpc.getListSchedulesMethod) == null) {
          ScheduleServiceGrpc.getListSchedulesMethod = getListSchedulesMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListSchedulesRequest, dev.agentd.v1.ListSchedulesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListSchedules"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListSchedulesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListSchedulesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ScheduleServiceMethodDescriptorSupplier("ListSchedules"))
              .build();
        }
      }
    }
    return getListSchedulesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.UpdateScheduleRequest,
      dev.agentd.v1.Schedule> getUpdateScheduleMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpdateSchedule",
      requestType = dev.agentd.v1.UpdateScheduleRequest.class,
      responseType = dev.agentd.v1.Schedule.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.UpdateScheduleRequest,
      dev.agentd.v1.Schedule> getUpdateScheduleMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.UpdateScheduleRequest, dev.agentd.v1.Schedule> getUpdateScheduleMethod;
    if ((getUpdateScheduleMethod = ScheduleServiceGrpc.getUpdateScheduleMethod) == null) {
      synchronized (ScheduleServiceGrpc.class) {
        if ((getUpdateScheduleMethod = ScheduleServiceGrpc.getUpdateScheduleMethod) == null) {
          ScheduleServiceGrpc.getUpdateScheduleMethod = getUpdateScheduleMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.UpdateScheduleRequest, dev.agentd.v1.Schedule>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpdateSchedule"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.UpdateScheduleRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Schedule.getDefaultInstance()))
              .setSchemaDescriptor(new ScheduleServiceMethodDescriptorSupplier("UpdateSchedule"))
              .build();
        }
      }
    }
    return getUpdateScheduleMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.PauseScheduleRequest,
      dev.agentd.v1.Schedule> getPauseScheduleMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PauseSchedule",
      requestType = dev.agentd.v1.PauseScheduleRequest.class,
      responseType = dev.agentd.v1.Schedule.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.PauseScheduleRequest,
      dev.agentd.v1.Schedule> getPauseScheduleMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.PauseScheduleRequest, dev.agentd.v1.Schedule> getPauseScheduleMethod;
    if ((getPauseScheduleMethod = ScheduleServiceGrpc.getPauseScheduleMethod) == null) {
      synchronized (ScheduleServiceGrpc.class) {
        if ((getPauseScheduleMethod = ScheduleServiceGrpc.getPauseScheduleMethod) == null) {
          ScheduleServiceGrpc.getPauseScheduleMethod = getPauseScheduleMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.PauseScheduleRequest, dev.agentd.v1.Schedule>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PauseSchedule"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.PauseScheduleRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Schedule.getDefaultInstance()))
              .setSchemaDescriptor(new ScheduleServiceMethodDescriptorSupplier("PauseSchedule"))
              .build();
        }
      }
    }
    return getPauseScheduleMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ResumeScheduleRequest,
      dev.agentd.v1.Schedule> getResumeScheduleMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ResumeSchedule",
      requestType = dev.agentd.v1.ResumeScheduleRequest.class,
      responseType = dev.agentd.v1.Schedule.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ResumeScheduleRequest,
      dev.agentd.v1.Schedule> getResumeScheduleMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ResumeScheduleRequest, dev.agentd.v1.Schedule> getResumeScheduleMethod;
    if ((getResumeScheduleMethod = ScheduleServiceGrpc.getResumeScheduleMethod) == null) {
      synchronized (ScheduleServiceGrpc.class) {
        if ((getResumeScheduleMethod = ScheduleServiceGrpc.getResumeScheduleMethod) == null) {
          ScheduleServiceGrpc.getResumeScheduleMethod = getResumeScheduleMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ResumeScheduleRequest, dev.agentd.v1.Schedule>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ResumeSchedule"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ResumeScheduleRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Schedule.getDefaultInstance()))
              .setSchemaDescriptor(new ScheduleServiceMethodDescriptorSupplier("ResumeSchedule"))
              .build();
        }
      }
    }
    return getResumeScheduleMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteScheduleRequest,
      dev.agentd.v1.DeleteScheduleResponse> getDeleteScheduleMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteSchedule",
      requestType = dev.agentd.v1.DeleteScheduleRequest.class,
      responseType = dev.agentd.v1.DeleteScheduleResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteScheduleRequest,
      dev.agentd.v1.DeleteScheduleResponse> getDeleteScheduleMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteScheduleRequest, dev.agentd.v1.DeleteScheduleResponse> getDeleteScheduleMethod;
    if ((getDeleteScheduleMethod = ScheduleServiceGrpc.getDeleteScheduleMethod) == null) {
      synchronized (ScheduleServiceGrpc.class) {
        if ((getDeleteScheduleMethod = ScheduleServiceGrpc.getDeleteScheduleMethod) == null) {
          ScheduleServiceGrpc.getDeleteScheduleMethod = getDeleteScheduleMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteScheduleRequest, dev.agentd.v1.DeleteScheduleResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteSchedule"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteScheduleRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteScheduleResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ScheduleServiceMethodDescriptorSupplier("DeleteSchedule"))
              .build();
        }
      }
    }
    return getDeleteScheduleMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.TriggerScheduleRequest,
      dev.agentd.v1.ScheduleRun> getTriggerScheduleMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "TriggerSchedule",
      requestType = dev.agentd.v1.TriggerScheduleRequest.class,
      responseType = dev.agentd.v1.ScheduleRun.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.TriggerScheduleRequest,
      dev.agentd.v1.ScheduleRun> getTriggerScheduleMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.TriggerScheduleRequest, dev.agentd.v1.ScheduleRun> getTriggerScheduleMethod;
    if ((getTriggerScheduleMethod = ScheduleServiceGrpc.getTriggerScheduleMethod) == null) {
      synchronized (ScheduleServiceGrpc.class) {
        if ((getTriggerScheduleMethod = ScheduleServiceGrpc.getTriggerScheduleMethod) == null) {
          ScheduleServiceGrpc.getTriggerScheduleMethod = getTriggerScheduleMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.TriggerScheduleRequest, dev.agentd.v1.ScheduleRun>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "TriggerSchedule"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.TriggerScheduleRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ScheduleRun.getDefaultInstance()))
              .setSchemaDescriptor(new ScheduleServiceMethodDescriptorSupplier("TriggerSchedule"))
              .build();
        }
      }
    }
    return getTriggerScheduleMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListScheduleRunsRequest,
      dev.agentd.v1.ListScheduleRunsResponse> getListScheduleRunsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListScheduleRuns",
      requestType = dev.agentd.v1.ListScheduleRunsRequest.class,
      responseType = dev.agentd.v1.ListScheduleRunsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListScheduleRunsRequest,
      dev.agentd.v1.ListScheduleRunsResponse> getListScheduleRunsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListScheduleRunsRequest, dev.agentd.v1.ListScheduleRunsResponse> getListScheduleRunsMethod;
    if ((getListScheduleRunsMethod = ScheduleServiceGrpc.getListScheduleRunsMethod) == null) {
      synchronized (ScheduleServiceGrpc.class) {
        if ((getListScheduleRunsMethod = ScheduleServiceGrpc.getListScheduleRunsMethod) == null) {
          ScheduleServiceGrpc.getListScheduleRunsMethod = getListScheduleRunsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListScheduleRunsRequest, dev.agentd.v1.ListScheduleRunsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListScheduleRuns"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListScheduleRunsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListScheduleRunsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new ScheduleServiceMethodDescriptorSupplier("ListScheduleRuns"))
              .build();
        }
      }
    }
    return getListScheduleRunsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static ScheduleServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ScheduleServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ScheduleServiceStub>() {
        @java.lang.Override
        public ScheduleServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ScheduleServiceStub(channel, callOptions);
        }
      };
    return ScheduleServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static ScheduleServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ScheduleServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ScheduleServiceBlockingStub>() {
        @java.lang.Override
        public ScheduleServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ScheduleServiceBlockingStub(channel, callOptions);
        }
      };
    return ScheduleServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static ScheduleServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<ScheduleServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<ScheduleServiceFutureStub>() {
        @java.lang.Override
        public ScheduleServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new ScheduleServiceFutureStub(channel, callOptions);
        }
      };
    return ScheduleServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Schedules start an agent's tasks on its own time: by a cron expression in a
   * time zone, every N seconds, or once at an instant. Each due time starts
   * exactly one task across any number of replicas (a task id derived from the
   * schedule and the due time). A schedule runs as the principal that created
   * it, resolved again at every run: a revoked key or grant refuses the run
   * with the reason, and AGENTD_SCHEDULE_MAX_REFUSALS refusals in a row pause
   * the schedule. Operator or admin role to change schedules; any role of the
   * tenant to read them.
   * </pre>
   */
  public static abstract class ScheduleServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * INVALID_ARGUMENT naming the field of a malformed cron expression, an
     * unknown time zone, an interval below AGENTD_SCHEDULE_MIN_INTERVAL_SECONDS
     * or an instant in the past.
     * </pre>
     */
    public void createSchedule(dev.agentd.v1.CreateScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateScheduleMethod(), responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`SCHEDULE_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getSchedule(dev.agentd.v1.GetScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetScheduleMethod(), responseObserver);
    }

    /**
     * <pre>
     * Oldest first.
     * </pre>
     */
    public void listSchedules(dev.agentd.v1.ListSchedulesRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListSchedulesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListSchedulesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Changes the fields of `update_mask`; ABORTED (`ETAG_MISMATCH`) when
     * `etag` is set and is not the schedule's current one.
     * </pre>
     */
    public void updateSchedule(dev.agentd.v1.UpdateScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpdateScheduleMethod(), responseObserver);
    }

    /**
     * <pre>
     * A paused schedule starts nothing; its due times pass unrun.
     * </pre>
     */
    public void pauseSchedule(dev.agentd.v1.PauseScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPauseScheduleMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs on from the next due time after now (and clears the refusals
     * count); missed due times within the catch-up window run as the schedule
     * says.
     * </pre>
     */
    public void resumeSchedule(dev.agentd.v1.ResumeScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResumeScheduleMethod(), responseObserver);
    }

    /**
     */
    public void deleteSchedule(dev.agentd.v1.DeleteScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteScheduleResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteScheduleMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs the schedule now, outside its times, under its overlap policy; a
     * retry with the same `request_id` returns the same run (and starts it if
     * the first attempt could not). FAILED_PRECONDITION (`SCHEDULE_NOT_ACTIVE`)
     * on a paused or ended schedule.
     * </pre>
     */
    public void triggerSchedule(dev.agentd.v1.TriggerScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ScheduleRun> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getTriggerScheduleMethod(), responseObserver);
    }

    /**
     * <pre>
     * A schedule's runs, newest first, with their tasks and outcomes.
     * </pre>
     */
    public void listScheduleRuns(dev.agentd.v1.ListScheduleRunsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListScheduleRunsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListScheduleRunsMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getCreateScheduleMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CreateScheduleRequest,
                dev.agentd.v1.Schedule>(
                  this, METHODID_CREATE_SCHEDULE)))
          .addMethod(
            getGetScheduleMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetScheduleRequest,
                dev.agentd.v1.Schedule>(
                  this, METHODID_GET_SCHEDULE)))
          .addMethod(
            getListSchedulesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListSchedulesRequest,
                dev.agentd.v1.ListSchedulesResponse>(
                  this, METHODID_LIST_SCHEDULES)))
          .addMethod(
            getUpdateScheduleMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.UpdateScheduleRequest,
                dev.agentd.v1.Schedule>(
                  this, METHODID_UPDATE_SCHEDULE)))
          .addMethod(
            getPauseScheduleMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.PauseScheduleRequest,
                dev.agentd.v1.Schedule>(
                  this, METHODID_PAUSE_SCHEDULE)))
          .addMethod(
            getResumeScheduleMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ResumeScheduleRequest,
                dev.agentd.v1.Schedule>(
                  this, METHODID_RESUME_SCHEDULE)))
          .addMethod(
            getDeleteScheduleMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteScheduleRequest,
                dev.agentd.v1.DeleteScheduleResponse>(
                  this, METHODID_DELETE_SCHEDULE)))
          .addMethod(
            getTriggerScheduleMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.TriggerScheduleRequest,
                dev.agentd.v1.ScheduleRun>(
                  this, METHODID_TRIGGER_SCHEDULE)))
          .addMethod(
            getListScheduleRunsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListScheduleRunsRequest,
                dev.agentd.v1.ListScheduleRunsResponse>(
                  this, METHODID_LIST_SCHEDULE_RUNS)))
          .build();
    }
  }

  /**
   * <pre>
   * Schedules start an agent's tasks on its own time: by a cron expression in a
   * time zone, every N seconds, or once at an instant. Each due time starts
   * exactly one task across any number of replicas (a task id derived from the
   * schedule and the due time). A schedule runs as the principal that created
   * it, resolved again at every run: a revoked key or grant refuses the run
   * with the reason, and AGENTD_SCHEDULE_MAX_REFUSALS refusals in a row pause
   * the schedule. Operator or admin role to change schedules; any role of the
   * tenant to read them.
   * </pre>
   */
  public static final class ScheduleServiceStub extends io.grpc.stub.AbstractAsyncStub<ScheduleServiceStub> {
    private ScheduleServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ScheduleServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ScheduleServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * INVALID_ARGUMENT naming the field of a malformed cron expression, an
     * unknown time zone, an interval below AGENTD_SCHEDULE_MIN_INTERVAL_SECONDS
     * or an instant in the past.
     * </pre>
     */
    public void createSchedule(dev.agentd.v1.CreateScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateScheduleMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`SCHEDULE_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getSchedule(dev.agentd.v1.GetScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetScheduleMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Oldest first.
     * </pre>
     */
    public void listSchedules(dev.agentd.v1.ListSchedulesRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListSchedulesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListSchedulesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Changes the fields of `update_mask`; ABORTED (`ETAG_MISMATCH`) when
     * `etag` is set and is not the schedule's current one.
     * </pre>
     */
    public void updateSchedule(dev.agentd.v1.UpdateScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpdateScheduleMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * A paused schedule starts nothing; its due times pass unrun.
     * </pre>
     */
    public void pauseSchedule(dev.agentd.v1.PauseScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPauseScheduleMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs on from the next due time after now (and clears the refusals
     * count); missed due times within the catch-up window run as the schedule
     * says.
     * </pre>
     */
    public void resumeSchedule(dev.agentd.v1.ResumeScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResumeScheduleMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     */
    public void deleteSchedule(dev.agentd.v1.DeleteScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteScheduleResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteScheduleMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs the schedule now, outside its times, under its overlap policy; a
     * retry with the same `request_id` returns the same run (and starts it if
     * the first attempt could not). FAILED_PRECONDITION (`SCHEDULE_NOT_ACTIVE`)
     * on a paused or ended schedule.
     * </pre>
     */
    public void triggerSchedule(dev.agentd.v1.TriggerScheduleRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ScheduleRun> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getTriggerScheduleMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * A schedule's runs, newest first, with their tasks and outcomes.
     * </pre>
     */
    public void listScheduleRuns(dev.agentd.v1.ListScheduleRunsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListScheduleRunsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListScheduleRunsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * Schedules start an agent's tasks on its own time: by a cron expression in a
   * time zone, every N seconds, or once at an instant. Each due time starts
   * exactly one task across any number of replicas (a task id derived from the
   * schedule and the due time). A schedule runs as the principal that created
   * it, resolved again at every run: a revoked key or grant refuses the run
   * with the reason, and AGENTD_SCHEDULE_MAX_REFUSALS refusals in a row pause
   * the schedule. Operator or admin role to change schedules; any role of the
   * tenant to read them.
   * </pre>
   */
  public static final class ScheduleServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<ScheduleServiceBlockingStub> {
    private ScheduleServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ScheduleServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ScheduleServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * INVALID_ARGUMENT naming the field of a malformed cron expression, an
     * unknown time zone, an interval below AGENTD_SCHEDULE_MIN_INTERVAL_SECONDS
     * or an instant in the past.
     * </pre>
     */
    public dev.agentd.v1.Schedule createSchedule(dev.agentd.v1.CreateScheduleRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateScheduleMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`SCHEDULE_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public dev.agentd.v1.Schedule getSchedule(dev.agentd.v1.GetScheduleRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetScheduleMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Oldest first.
     * </pre>
     */
    public dev.agentd.v1.ListSchedulesResponse listSchedules(dev.agentd.v1.ListSchedulesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListSchedulesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Changes the fields of `update_mask`; ABORTED (`ETAG_MISMATCH`) when
     * `etag` is set and is not the schedule's current one.
     * </pre>
     */
    public dev.agentd.v1.Schedule updateSchedule(dev.agentd.v1.UpdateScheduleRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpdateScheduleMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A paused schedule starts nothing; its due times pass unrun.
     * </pre>
     */
    public dev.agentd.v1.Schedule pauseSchedule(dev.agentd.v1.PauseScheduleRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPauseScheduleMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs on from the next due time after now (and clears the refusals
     * count); missed due times within the catch-up window run as the schedule
     * says.
     * </pre>
     */
    public dev.agentd.v1.Schedule resumeSchedule(dev.agentd.v1.ResumeScheduleRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResumeScheduleMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.agentd.v1.DeleteScheduleResponse deleteSchedule(dev.agentd.v1.DeleteScheduleRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteScheduleMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the schedule now, outside its times, under its overlap policy; a
     * retry with the same `request_id` returns the same run (and starts it if
     * the first attempt could not). FAILED_PRECONDITION (`SCHEDULE_NOT_ACTIVE`)
     * on a paused or ended schedule.
     * </pre>
     */
    public dev.agentd.v1.ScheduleRun triggerSchedule(dev.agentd.v1.TriggerScheduleRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getTriggerScheduleMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A schedule's runs, newest first, with their tasks and outcomes.
     * </pre>
     */
    public dev.agentd.v1.ListScheduleRunsResponse listScheduleRuns(dev.agentd.v1.ListScheduleRunsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListScheduleRunsMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * Schedules start an agent's tasks on its own time: by a cron expression in a
   * time zone, every N seconds, or once at an instant. Each due time starts
   * exactly one task across any number of replicas (a task id derived from the
   * schedule and the due time). A schedule runs as the principal that created
   * it, resolved again at every run: a revoked key or grant refuses the run
   * with the reason, and AGENTD_SCHEDULE_MAX_REFUSALS refusals in a row pause
   * the schedule. Operator or admin role to change schedules; any role of the
   * tenant to read them.
   * </pre>
   */
  public static final class ScheduleServiceFutureStub extends io.grpc.stub.AbstractFutureStub<ScheduleServiceFutureStub> {
    private ScheduleServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected ScheduleServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new ScheduleServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * INVALID_ARGUMENT naming the field of a malformed cron expression, an
     * unknown time zone, an interval below AGENTD_SCHEDULE_MIN_INTERVAL_SECONDS
     * or an instant in the past.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Schedule> createSchedule(
        dev.agentd.v1.CreateScheduleRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateScheduleMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`SCHEDULE_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Schedule> getSchedule(
        dev.agentd.v1.GetScheduleRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetScheduleMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Oldest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListSchedulesResponse> listSchedules(
        dev.agentd.v1.ListSchedulesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListSchedulesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Changes the fields of `update_mask`; ABORTED (`ETAG_MISMATCH`) when
     * `etag` is set and is not the schedule's current one.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Schedule> updateSchedule(
        dev.agentd.v1.UpdateScheduleRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpdateScheduleMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * A paused schedule starts nothing; its due times pass unrun.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Schedule> pauseSchedule(
        dev.agentd.v1.PauseScheduleRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPauseScheduleMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Runs on from the next due time after now (and clears the refusals
     * count); missed due times within the catch-up window run as the schedule
     * says.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Schedule> resumeSchedule(
        dev.agentd.v1.ResumeScheduleRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResumeScheduleMethod(), getCallOptions()), request);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteScheduleResponse> deleteSchedule(
        dev.agentd.v1.DeleteScheduleRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteScheduleMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Runs the schedule now, outside its times, under its overlap policy; a
     * retry with the same `request_id` returns the same run (and starts it if
     * the first attempt could not). FAILED_PRECONDITION (`SCHEDULE_NOT_ACTIVE`)
     * on a paused or ended schedule.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ScheduleRun> triggerSchedule(
        dev.agentd.v1.TriggerScheduleRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getTriggerScheduleMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * A schedule's runs, newest first, with their tasks and outcomes.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListScheduleRunsResponse> listScheduleRuns(
        dev.agentd.v1.ListScheduleRunsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListScheduleRunsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_SCHEDULE = 0;
  private static final int METHODID_GET_SCHEDULE = 1;
  private static final int METHODID_LIST_SCHEDULES = 2;
  private static final int METHODID_UPDATE_SCHEDULE = 3;
  private static final int METHODID_PAUSE_SCHEDULE = 4;
  private static final int METHODID_RESUME_SCHEDULE = 5;
  private static final int METHODID_DELETE_SCHEDULE = 6;
  private static final int METHODID_TRIGGER_SCHEDULE = 7;
  private static final int METHODID_LIST_SCHEDULE_RUNS = 8;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final ScheduleServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(ScheduleServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_CREATE_SCHEDULE:
          serviceImpl.createSchedule((dev.agentd.v1.CreateScheduleRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule>) responseObserver);
          break;
        case METHODID_GET_SCHEDULE:
          serviceImpl.getSchedule((dev.agentd.v1.GetScheduleRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule>) responseObserver);
          break;
        case METHODID_LIST_SCHEDULES:
          serviceImpl.listSchedules((dev.agentd.v1.ListSchedulesRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListSchedulesResponse>) responseObserver);
          break;
        case METHODID_UPDATE_SCHEDULE:
          serviceImpl.updateSchedule((dev.agentd.v1.UpdateScheduleRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule>) responseObserver);
          break;
        case METHODID_PAUSE_SCHEDULE:
          serviceImpl.pauseSchedule((dev.agentd.v1.PauseScheduleRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule>) responseObserver);
          break;
        case METHODID_RESUME_SCHEDULE:
          serviceImpl.resumeSchedule((dev.agentd.v1.ResumeScheduleRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Schedule>) responseObserver);
          break;
        case METHODID_DELETE_SCHEDULE:
          serviceImpl.deleteSchedule((dev.agentd.v1.DeleteScheduleRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteScheduleResponse>) responseObserver);
          break;
        case METHODID_TRIGGER_SCHEDULE:
          serviceImpl.triggerSchedule((dev.agentd.v1.TriggerScheduleRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ScheduleRun>) responseObserver);
          break;
        case METHODID_LIST_SCHEDULE_RUNS:
          serviceImpl.listScheduleRuns((dev.agentd.v1.ListScheduleRunsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListScheduleRunsResponse>) responseObserver);
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

  private static abstract class ScheduleServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    ScheduleServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.agentd.v1.SchedulesProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("ScheduleService");
    }
  }

  private static final class ScheduleServiceFileDescriptorSupplier
      extends ScheduleServiceBaseDescriptorSupplier {
    ScheduleServiceFileDescriptorSupplier() {}
  }

  private static final class ScheduleServiceMethodDescriptorSupplier
      extends ScheduleServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    ScheduleServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (ScheduleServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new ScheduleServiceFileDescriptorSupplier())
              .addMethod(getCreateScheduleMethod())
              .addMethod(getGetScheduleMethod())
              .addMethod(getListSchedulesMethod())
              .addMethod(getUpdateScheduleMethod())
              .addMethod(getPauseScheduleMethod())
              .addMethod(getResumeScheduleMethod())
              .addMethod(getDeleteScheduleMethod())
              .addMethod(getTriggerScheduleMethod())
              .addMethod(getListScheduleRunsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
