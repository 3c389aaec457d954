package dev.agentd.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Runs LLM agents and the tools they use.
 * Every failed call carries a `google.rpc.Status` with a
 * `google.rpc.ErrorInfo` (domain "agentd", reason from `ErrorReason`) and,
 * for invalid input, a `google.rpc.BadRequest` listing each field violation.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: agentd/v1/agent_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class AgentServiceGrpc {

  private AgentServiceGrpc() {}

  public static final String SERVICE_NAME = "agentd.v1.AgentService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ExecuteRequest,
      dev.agentd.v1.TaskEvent> getExecuteMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Execute",
      requestType = dev.agentd.v1.ExecuteRequest.class,
      responseType = dev.agentd.v1.TaskEvent.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ExecuteRequest,
      dev.agentd.v1.TaskEvent> getExecuteMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ExecuteRequest, dev.agentd.v1.TaskEvent> getExecuteMethod;
    if ((getExecuteMethod = AgentServiceGrpc.getExecuteMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getExecuteMethod = AgentServiceGrpc.getExecuteMethod) == null) {
          AgentServiceGrpc.getExecuteMethod = getExecuteMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ExecuteRequest, dev.agentd.v1.TaskEvent>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Execute"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ExecuteRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.TaskEvent.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("Execute"))
              .build();
        }
      }
    }
    return getExecuteMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ExecuteRequest,
      dev.agentd.v1.Task> getStartTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "StartTask",
      requestType = dev.agentd.v1.ExecuteRequest.class,
      responseType = dev.agentd.v1.Task.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ExecuteRequest,
      dev.agentd.v1.Task> getStartTaskMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ExecuteRequest, dev.agentd.v1.Task> getStartTaskMethod;
    if ((getStartTaskMethod = AgentServiceGrpc.getStartTaskMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getStartTaskMethod = AgentServiceGrpc.getStartTaskMethod) == null) {
          AgentServiceGrpc.getStartTaskMethod = getStartTaskMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ExecuteRequest, dev.agentd.v1.Task>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "StartTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ExecuteRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Task.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("StartTask"))
              .build();
        }
      }
    }
    return getStartTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.PlanRequest,
      dev.agentd.v1.PlanResponse> getPlanMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Plan",
      requestType = dev.agentd.v1.PlanRequest.class,
      responseType = dev.agentd.v1.PlanResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.PlanRequest,
      dev.agentd.v1.PlanResponse> getPlanMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.PlanRequest, dev.agentd.v1.PlanResponse> getPlanMethod;
    if ((getPlanMethod = AgentServiceGrpc.getPlanMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getPlanMethod = AgentServiceGrpc.getPlanMethod) == null) {
          AgentServiceGrpc.getPlanMethod = getPlanMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.PlanRequest, dev.agentd.v1.PlanResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Plan"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.PlanRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.PlanResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("Plan"))
              .build();
        }
      }
    }
    return getPlanMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CallToolRequest,
      dev.agentd.v1.CallToolResponse> getCallToolMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CallTool",
      requestType = dev.agentd.v1.CallToolRequest.class,
      responseType = dev.agentd.v1.CallToolResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CallToolRequest,
      dev.agentd.v1.CallToolResponse> getCallToolMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CallToolRequest, dev.agentd.v1.CallToolResponse> getCallToolMethod;
    if ((getCallToolMethod = AgentServiceGrpc.getCallToolMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getCallToolMethod = AgentServiceGrpc.getCallToolMethod) == null) {
          AgentServiceGrpc.getCallToolMethod = getCallToolMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CallToolRequest, dev.agentd.v1.CallToolResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CallTool"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CallToolRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CallToolResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("CallTool"))
              .build();
        }
      }
    }
    return getCallToolMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetTaskRequest,
      dev.agentd.v1.Task> getGetTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetTask",
      requestType = dev.agentd.v1.GetTaskRequest.class,
      responseType = dev.agentd.v1.Task.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetTaskRequest,
      dev.agentd.v1.Task> getGetTaskMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetTaskRequest, dev.agentd.v1.Task> getGetTaskMethod;
    if ((getGetTaskMethod = AgentServiceGrpc.getGetTaskMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getGetTaskMethod = AgentServiceGrpc.getGetTaskMethod) == null) {
          AgentServiceGrpc.getGetTaskMethod = getGetTaskMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetTaskRequest, dev.agentd.v1.Task>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Task.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("GetTask"))
              .build();
        }
      }
    }
    return getGetTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListToolsRequest,
      dev.agentd.v1.ListToolsResponse> getListToolsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTools",
      requestType = dev.agentd.v1.ListToolsRequest.class,
      responseType = dev.agentd.v1.ListToolsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListToolsRequest,
      dev.agentd.v1.ListToolsResponse> getListToolsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListToolsRequest, dev.agentd.v1.ListToolsResponse> getListToolsMethod;
    if ((getListToolsMethod = AgentServiceGrpc.getListToolsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListToolsMethod = AgentServiceGrpc.getListToolsMethod) == null) {
          AgentServiceGrpc.getListToolsMethod = getListToolsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListToolsRequest, dev.agentd.v1.ListToolsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTools"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListToolsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListToolsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListTools"))
              .build();
        }
      }
    }
    return getListToolsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CancelTaskRequest,
      dev.agentd.v1.Task> getCancelTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CancelTask",
      requestType = dev.agentd.v1.CancelTaskRequest.class,
      responseType = dev.agentd.v1.Task.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CancelTaskRequest,
      dev.agentd.v1.Task> getCancelTaskMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CancelTaskRequest, dev.agentd.v1.Task> getCancelTaskMethod;
    if ((getCancelTaskMethod = AgentServiceGrpc.getCancelTaskMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getCancelTaskMethod = AgentServiceGrpc.getCancelTaskMethod) == null) {
          AgentServiceGrpc.getCancelTaskMethod = getCancelTaskMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CancelTaskRequest, dev.agentd.v1.Task>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CancelTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CancelTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Task.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("CancelTask"))
              .build();
        }
      }
    }
    return getCancelTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.SteerTaskRequest,
      dev.agentd.v1.SteerTaskResponse> getSteerTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SteerTask",
      requestType = dev.agentd.v1.SteerTaskRequest.class,
      responseType = dev.agentd.v1.SteerTaskResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.SteerTaskRequest,
      dev.agentd.v1.SteerTaskResponse> getSteerTaskMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.SteerTaskRequest, dev.agentd.v1.SteerTaskResponse> getSteerTaskMethod;
    if ((getSteerTaskMethod = AgentServiceGrpc.getSteerTaskMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getSteerTaskMethod = AgentServiceGrpc.getSteerTaskMethod) == null) {
          AgentServiceGrpc.getSteerTaskMethod = getSteerTaskMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.SteerTaskRequest, dev.agentd.v1.SteerTaskResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SteerTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.SteerTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.SteerTaskResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("SteerTask"))
              .build();
        }
      }
    }
    return getSteerTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.StreamTaskEventsRequest,
      dev.agentd.v1.TaskEvent> getStreamTaskEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "StreamTaskEvents",
      requestType = dev.agentd.v1.StreamTaskEventsRequest.class,
      responseType = dev.agentd.v1.TaskEvent.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.StreamTaskEventsRequest,
      dev.agentd.v1.TaskEvent> getStreamTaskEventsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.StreamTaskEventsRequest, dev.agentd.v1.TaskEvent> getStreamTaskEventsMethod;
    if ((getStreamTaskEventsMethod = AgentServiceGrpc.getStreamTaskEventsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getStreamTaskEventsMethod = AgentServiceGrpc.getStreamTaskEventsMethod) == null) {
          AgentServiceGrpc.getStreamTaskEventsMethod = getStreamTaskEventsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.StreamTaskEventsRequest, dev.agentd.v1.TaskEvent>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "StreamTaskEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.StreamTaskEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.TaskEvent.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("StreamTaskEvents"))
              .build();
        }
      }
    }
    return getStreamTaskEventsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListTasksRequest,
      dev.agentd.v1.ListTasksResponse> getListTasksMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListTasks",
      requestType = dev.agentd.v1.ListTasksRequest.class,
      responseType = dev.agentd.v1.ListTasksResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListTasksRequest,
      dev.agentd.v1.ListTasksResponse> getListTasksMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListTasksRequest, dev.agentd.v1.ListTasksResponse> getListTasksMethod;
    if ((getListTasksMethod = AgentServiceGrpc.getListTasksMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListTasksMethod = AgentServiceGrpc.getListTasksMethod) == null) {
          AgentServiceGrpc.getListTasksMethod = getListTasksMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListTasksRequest, dev.agentd.v1.ListTasksResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListTasks"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListTasksRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListTasksResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListTasks"))
              .build();
        }
      }
    }
    return getListTasksMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ApproveToolCallRequest,
      dev.agentd.v1.Task> getApproveToolCallMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ApproveToolCall",
      requestType = dev.agentd.v1.ApproveToolCallRequest.class,
      responseType = dev.agentd.v1.Task.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ApproveToolCallRequest,
      dev.agentd.v1.Task> getApproveToolCallMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ApproveToolCallRequest, dev.agentd.v1.Task> getApproveToolCallMethod;
    if ((getApproveToolCallMethod = AgentServiceGrpc.getApproveToolCallMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getApproveToolCallMethod = AgentServiceGrpc.getApproveToolCallMethod) == null) {
          AgentServiceGrpc.getApproveToolCallMethod = getApproveToolCallMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ApproveToolCallRequest, dev.agentd.v1.Task>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ApproveToolCall"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ApproveToolCallRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Task.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ApproveToolCall"))
              .build();
        }
      }
    }
    return getApproveToolCallMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ProvideInputRequest,
      dev.agentd.v1.Task> getProvideInputMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ProvideInput",
      requestType = dev.agentd.v1.ProvideInputRequest.class,
      responseType = dev.agentd.v1.Task.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ProvideInputRequest,
      dev.agentd.v1.Task> getProvideInputMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ProvideInputRequest, dev.agentd.v1.Task> getProvideInputMethod;
    if ((getProvideInputMethod = AgentServiceGrpc.getProvideInputMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getProvideInputMethod = AgentServiceGrpc.getProvideInputMethod) == null) {
          AgentServiceGrpc.getProvideInputMethod = getProvideInputMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ProvideInputRequest, dev.agentd.v1.Task>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ProvideInput"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ProvideInputRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Task.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ProvideInput"))
              .build();
        }
      }
    }
    return getProvideInputMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ResumeTaskRequest,
      dev.agentd.v1.Task> getResumeTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ResumeTask",
      requestType = dev.agentd.v1.ResumeTaskRequest.class,
      responseType = dev.agentd.v1.Task.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ResumeTaskRequest,
      dev.agentd.v1.Task> getResumeTaskMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ResumeTaskRequest, dev.agentd.v1.Task> getResumeTaskMethod;
    if ((getResumeTaskMethod = AgentServiceGrpc.getResumeTaskMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getResumeTaskMethod = AgentServiceGrpc.getResumeTaskMethod) == null) {
          AgentServiceGrpc.getResumeTaskMethod = getResumeTaskMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ResumeTaskRequest, dev.agentd.v1.Task>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ResumeTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ResumeTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Task.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ResumeTask"))
              .build();
        }
      }
    }
    return getResumeTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetTaskTraceRequest,
      dev.agentd.v1.GetTaskTraceResponse> getGetTaskTraceMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetTaskTrace",
      requestType = dev.agentd.v1.GetTaskTraceRequest.class,
      responseType = dev.agentd.v1.GetTaskTraceResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetTaskTraceRequest,
      dev.agentd.v1.GetTaskTraceResponse> getGetTaskTraceMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetTaskTraceRequest, dev.agentd.v1.GetTaskTraceResponse> getGetTaskTraceMethod;
    if ((getGetTaskTraceMethod = AgentServiceGrpc.getGetTaskTraceMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getGetTaskTraceMethod = AgentServiceGrpc.getGetTaskTraceMethod) == null) {
          AgentServiceGrpc.getGetTaskTraceMethod = getGetTaskTraceMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetTaskTraceRequest, dev.agentd.v1.GetTaskTraceResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetTaskTrace"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetTaskTraceRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetTaskTraceResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("GetTaskTrace"))
              .build();
        }
      }
    }
    return getGetTaskTraceMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ReplayTaskRequest,
      dev.agentd.v1.Task> getReplayTaskMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReplayTask",
      requestType = dev.agentd.v1.ReplayTaskRequest.class,
      responseType = dev.agentd.v1.Task.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ReplayTaskRequest,
      dev.agentd.v1.Task> getReplayTaskMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ReplayTaskRequest, dev.agentd.v1.Task> getReplayTaskMethod;
    if ((getReplayTaskMethod = AgentServiceGrpc.getReplayTaskMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getReplayTaskMethod = AgentServiceGrpc.getReplayTaskMethod) == null) {
          AgentServiceGrpc.getReplayTaskMethod = getReplayTaskMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ReplayTaskRequest, dev.agentd.v1.Task>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReplayTask"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ReplayTaskRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Task.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ReplayTask"))
              .build();
        }
      }
    }
    return getReplayTaskMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListPendingActionsRequest,
      dev.agentd.v1.ListPendingActionsResponse> getListPendingActionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListPendingActions",
      requestType = dev.agentd.v1.ListPendingActionsRequest.class,
      responseType = dev.agentd.v1.ListPendingActionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListPendingActionsRequest,
      dev.agentd.v1.ListPendingActionsResponse> getListPendingActionsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListPendingActionsRequest, dev.agentd.v1.ListPendingActionsResponse> getListPendingActionsMethod;
    if ((getListPendingActionsMethod = AgentServiceGrpc.getListPendingActionsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListPendingActionsMethod = AgentServiceGrpc.getListPendingActionsMethod) == null) {
          AgentServiceGrpc.getListPendingActionsMethod = getListPendingActionsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListPendingActionsRequest, dev.agentd.v1.ListPendingActionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListPendingActions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListPendingActionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListPendingActionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListPendingActions"))
              .build();
        }
      }
    }
    return getListPendingActionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListActionHistoryRequest,
      dev.agentd.v1.ListActionHistoryResponse> getListActionHistoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListActionHistory",
      requestType = dev.agentd.v1.ListActionHistoryRequest.class,
      responseType = dev.agentd.v1.ListActionHistoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListActionHistoryRequest,
      dev.agentd.v1.ListActionHistoryResponse> getListActionHistoryMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListActionHistoryRequest, dev.agentd.v1.ListActionHistoryResponse> getListActionHistoryMethod;
    if ((getListActionHistoryMethod = AgentServiceGrpc.getListActionHistoryMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListActionHistoryMethod = AgentServiceGrpc.getListActionHistoryMethod) == null) {
          AgentServiceGrpc.getListActionHistoryMethod = getListActionHistoryMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListActionHistoryRequest, dev.agentd.v1.ListActionHistoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListActionHistory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListActionHistoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListActionHistoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListActionHistory"))
              .build();
        }
      }
    }
    return getListActionHistoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListAuditRecordsRequest,
      dev.agentd.v1.ListAuditRecordsResponse> getListAuditRecordsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAuditRecords",
      requestType = dev.agentd.v1.ListAuditRecordsRequest.class,
      responseType = dev.agentd.v1.ListAuditRecordsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListAuditRecordsRequest,
      dev.agentd.v1.ListAuditRecordsResponse> getListAuditRecordsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListAuditRecordsRequest, dev.agentd.v1.ListAuditRecordsResponse> getListAuditRecordsMethod;
    if ((getListAuditRecordsMethod = AgentServiceGrpc.getListAuditRecordsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListAuditRecordsMethod = AgentServiceGrpc.getListAuditRecordsMethod) == null) {
          AgentServiceGrpc.getListAuditRecordsMethod = getListAuditRecordsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListAuditRecordsRequest, dev.agentd.v1.ListAuditRecordsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAuditRecords"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListAuditRecordsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListAuditRecordsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListAuditRecords"))
              .build();
        }
      }
    }
    return getListAuditRecordsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CreateGrantRequest,
      dev.agentd.v1.Grant> getCreateGrantMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateGrant",
      requestType = dev.agentd.v1.CreateGrantRequest.class,
      responseType = dev.agentd.v1.Grant.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CreateGrantRequest,
      dev.agentd.v1.Grant> getCreateGrantMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CreateGrantRequest, dev.agentd.v1.Grant> getCreateGrantMethod;
    if ((getCreateGrantMethod = AgentServiceGrpc.getCreateGrantMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getCreateGrantMethod = AgentServiceGrpc.getCreateGrantMethod) == null) {
          AgentServiceGrpc.getCreateGrantMethod = getCreateGrantMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CreateGrantRequest, dev.agentd.v1.Grant>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateGrant"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CreateGrantRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Grant.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("CreateGrant"))
              .build();
        }
      }
    }
    return getCreateGrantMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.RevokeGrantRequest,
      dev.agentd.v1.Grant> getRevokeGrantMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RevokeGrant",
      requestType = dev.agentd.v1.RevokeGrantRequest.class,
      responseType = dev.agentd.v1.Grant.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.RevokeGrantRequest,
      dev.agentd.v1.Grant> getRevokeGrantMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.RevokeGrantRequest, dev.agentd.v1.Grant> getRevokeGrantMethod;
    if ((getRevokeGrantMethod = AgentServiceGrpc.getRevokeGrantMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getRevokeGrantMethod = AgentServiceGrpc.getRevokeGrantMethod) == null) {
          AgentServiceGrpc.getRevokeGrantMethod = getRevokeGrantMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.RevokeGrantRequest, dev.agentd.v1.Grant>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RevokeGrant"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.RevokeGrantRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Grant.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("RevokeGrant"))
              .build();
        }
      }
    }
    return getRevokeGrantMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListGrantsRequest,
      dev.agentd.v1.ListGrantsResponse> getListGrantsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListGrants",
      requestType = dev.agentd.v1.ListGrantsRequest.class,
      responseType = dev.agentd.v1.ListGrantsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListGrantsRequest,
      dev.agentd.v1.ListGrantsResponse> getListGrantsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListGrantsRequest, dev.agentd.v1.ListGrantsResponse> getListGrantsMethod;
    if ((getListGrantsMethod = AgentServiceGrpc.getListGrantsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListGrantsMethod = AgentServiceGrpc.getListGrantsMethod) == null) {
          AgentServiceGrpc.getListGrantsMethod = getListGrantsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListGrantsRequest, dev.agentd.v1.ListGrantsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListGrants"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListGrantsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListGrantsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListGrants"))
              .build();
        }
      }
    }
    return getListGrantsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CreateAgentRequest,
      dev.agentd.v1.Agent> getCreateAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateAgent",
      requestType = dev.agentd.v1.CreateAgentRequest.class,
      responseType = dev.agentd.v1.Agent.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CreateAgentRequest,
      dev.agentd.v1.Agent> getCreateAgentMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CreateAgentRequest, dev.agentd.v1.Agent> getCreateAgentMethod;
    if ((getCreateAgentMethod = AgentServiceGrpc.getCreateAgentMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getCreateAgentMethod = AgentServiceGrpc.getCreateAgentMethod) == null) {
          AgentServiceGrpc.getCreateAgentMethod = getCreateAgentMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CreateAgentRequest, dev.agentd.v1.Agent>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CreateAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Agent.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("CreateAgent"))
              .build();
        }
      }
    }
    return getCreateAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetAgentRequest,
      dev.agentd.v1.Agent> getGetAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetAgent",
      requestType = dev.agentd.v1.GetAgentRequest.class,
      responseType = dev.agentd.v1.Agent.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetAgentRequest,
      dev.agentd.v1.Agent> getGetAgentMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetAgentRequest, dev.agentd.v1.Agent> getGetAgentMethod;
    if ((getGetAgentMethod = AgentServiceGrpc.getGetAgentMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getGetAgentMethod = AgentServiceGrpc.getGetAgentMethod) == null) {
          AgentServiceGrpc.getGetAgentMethod = getGetAgentMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetAgentRequest, dev.agentd.v1.Agent>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Agent.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("GetAgent"))
              .build();
        }
      }
    }
    return getGetAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListAgentsRequest,
      dev.agentd.v1.ListAgentsResponse> getListAgentsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListAgents",
      requestType = dev.agentd.v1.ListAgentsRequest.class,
      responseType = dev.agentd.v1.ListAgentsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListAgentsRequest,
      dev.agentd.v1.ListAgentsResponse> getListAgentsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListAgentsRequest, dev.agentd.v1.ListAgentsResponse> getListAgentsMethod;
    if ((getListAgentsMethod = AgentServiceGrpc.getListAgentsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListAgentsMethod = AgentServiceGrpc.getListAgentsMethod) == null) {
          AgentServiceGrpc.getListAgentsMethod = getListAgentsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListAgentsRequest, dev.agentd.v1.ListAgentsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListAgents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListAgentsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListAgentsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListAgents"))
              .build();
        }
      }
    }
    return getListAgentsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.UpdateAgentRequest,
      dev.agentd.v1.Agent> getUpdateAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpdateAgent",
      requestType = dev.agentd.v1.UpdateAgentRequest.class,
      responseType = dev.agentd.v1.Agent.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.UpdateAgentRequest,
      dev.agentd.v1.Agent> getUpdateAgentMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.UpdateAgentRequest, dev.agentd.v1.Agent> getUpdateAgentMethod;
    if ((getUpdateAgentMethod = AgentServiceGrpc.getUpdateAgentMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getUpdateAgentMethod = AgentServiceGrpc.getUpdateAgentMethod) == null) {
          AgentServiceGrpc.getUpdateAgentMethod = getUpdateAgentMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.UpdateAgentRequest, dev.agentd.v1.Agent>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpdateAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.UpdateAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Agent.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("UpdateAgent"))
              .build();
        }
      }
    }
    return getUpdateAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteAgentRequest,
      dev.agentd.v1.DeleteAgentResponse> getDeleteAgentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteAgent",
      requestType = dev.agentd.v1.DeleteAgentRequest.class,
      responseType = dev.agentd.v1.DeleteAgentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteAgentRequest,
      dev.agentd.v1.DeleteAgentResponse> getDeleteAgentMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteAgentRequest, dev.agentd.v1.DeleteAgentResponse> getDeleteAgentMethod;
    if ((getDeleteAgentMethod = AgentServiceGrpc.getDeleteAgentMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getDeleteAgentMethod = AgentServiceGrpc.getDeleteAgentMethod) == null) {
          AgentServiceGrpc.getDeleteAgentMethod = getDeleteAgentMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteAgentRequest, dev.agentd.v1.DeleteAgentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteAgent"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteAgentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteAgentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("DeleteAgent"))
              .build();
        }
      }
    }
    return getDeleteAgentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.PromoteAgentVersionRequest,
      dev.agentd.v1.Agent> getPromoteAgentVersionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "PromoteAgentVersion",
      requestType = dev.agentd.v1.PromoteAgentVersionRequest.class,
      responseType = dev.agentd.v1.Agent.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.PromoteAgentVersionRequest,
      dev.agentd.v1.Agent> getPromoteAgentVersionMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.PromoteAgentVersionRequest, dev.agentd.v1.Agent> getPromoteAgentVersionMethod;
    if ((getPromoteAgentVersionMethod = AgentServiceGrpc.getPromoteAgentVersionMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getPromoteAgentVersionMethod = AgentServiceGrpc.getPromoteAgentVersionMethod) == null) {
          AgentServiceGrpc.getPromoteAgentVersionMethod = getPromoteAgentVersionMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.PromoteAgentVersionRequest, dev.agentd.v1.Agent>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "PromoteAgentVersion"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.PromoteAgentVersionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Agent.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("PromoteAgentVersion"))
              .build();
        }
      }
    }
    return getPromoteAgentVersionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CreateConversationRequest,
      dev.agentd.v1.Conversation> getCreateConversationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateConversation",
      requestType = dev.agentd.v1.CreateConversationRequest.class,
      responseType = dev.agentd.v1.Conversation.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CreateConversationRequest,
      dev.agentd.v1.Conversation> getCreateConversationMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CreateConversationRequest, dev.agentd.v1.Conversation> getCreateConversationMethod;
    if ((getCreateConversationMethod = AgentServiceGrpc.getCreateConversationMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getCreateConversationMethod = AgentServiceGrpc.getCreateConversationMethod) == null) {
          AgentServiceGrpc.getCreateConversationMethod = getCreateConversationMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CreateConversationRequest, dev.agentd.v1.Conversation>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateConversation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CreateConversationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Conversation.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("CreateConversation"))
              .build();
        }
      }
    }
    return getCreateConversationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetConversationRequest,
      dev.agentd.v1.GetConversationResponse> getGetConversationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetConversation",
      requestType = dev.agentd.v1.GetConversationRequest.class,
      responseType = dev.agentd.v1.GetConversationResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetConversationRequest,
      dev.agentd.v1.GetConversationResponse> getGetConversationMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetConversationRequest, dev.agentd.v1.GetConversationResponse> getGetConversationMethod;
    if ((getGetConversationMethod = AgentServiceGrpc.getGetConversationMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getGetConversationMethod = AgentServiceGrpc.getGetConversationMethod) == null) {
          AgentServiceGrpc.getGetConversationMethod = getGetConversationMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetConversationRequest, dev.agentd.v1.GetConversationResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetConversation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetConversationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetConversationResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("GetConversation"))
              .build();
        }
      }
    }
    return getGetConversationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListConversationsRequest,
      dev.agentd.v1.ListConversationsResponse> getListConversationsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListConversations",
      requestType = dev.agentd.v1.ListConversationsRequest.class,
      responseType = dev.agentd.v1.ListConversationsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListConversationsRequest,
      dev.agentd.v1.ListConversationsResponse> getListConversationsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListConversationsRequest, dev.agentd.v1.ListConversationsResponse> getListConversationsMethod;
    if ((getListConversationsMethod = AgentServiceGrpc.getListConversationsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListConversationsMethod = AgentServiceGrpc.getListConversationsMethod) == null) {
          AgentServiceGrpc.getListConversationsMethod = getListConversationsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListConversationsRequest, dev.agentd.v1.ListConversationsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListConversations"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListConversationsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListConversationsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListConversations"))
              .build();
        }
      }
    }
    return getListConversationsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteConversationRequest,
      dev.agentd.v1.DeleteConversationResponse> getDeleteConversationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteConversation",
      requestType = dev.agentd.v1.DeleteConversationRequest.class,
      responseType = dev.agentd.v1.DeleteConversationResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteConversationRequest,
      dev.agentd.v1.DeleteConversationResponse> getDeleteConversationMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteConversationRequest, dev.agentd.v1.DeleteConversationResponse> getDeleteConversationMethod;
    if ((getDeleteConversationMethod = AgentServiceGrpc.getDeleteConversationMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getDeleteConversationMethod = AgentServiceGrpc.getDeleteConversationMethod) == null) {
          AgentServiceGrpc.getDeleteConversationMethod = getDeleteConversationMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteConversationRequest, dev.agentd.v1.DeleteConversationResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteConversation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteConversationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteConversationResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("DeleteConversation"))
              .build();
        }
      }
    }
    return getDeleteConversationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ForkConversationRequest,
      dev.agentd.v1.Conversation> getForkConversationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ForkConversation",
      requestType = dev.agentd.v1.ForkConversationRequest.class,
      responseType = dev.agentd.v1.Conversation.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ForkConversationRequest,
      dev.agentd.v1.Conversation> getForkConversationMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ForkConversationRequest, dev.agentd.v1.Conversation> getForkConversationMethod;
    if ((getForkConversationMethod = AgentServiceGrpc.getForkConversationMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getForkConversationMethod = AgentServiceGrpc.getForkConversationMethod) == null) {
          AgentServiceGrpc.getForkConversationMethod = getForkConversationMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ForkConversationRequest, dev.agentd.v1.Conversation>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ForkConversation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ForkConversationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Conversation.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ForkConversation"))
              .build();
        }
      }
    }
    return getForkConversationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.RewindConversationRequest,
      dev.agentd.v1.Conversation> getRewindConversationMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RewindConversation",
      requestType = dev.agentd.v1.RewindConversationRequest.class,
      responseType = dev.agentd.v1.Conversation.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.RewindConversationRequest,
      dev.agentd.v1.Conversation> getRewindConversationMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.RewindConversationRequest, dev.agentd.v1.Conversation> getRewindConversationMethod;
    if ((getRewindConversationMethod = AgentServiceGrpc.getRewindConversationMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getRewindConversationMethod = AgentServiceGrpc.getRewindConversationMethod) == null) {
          AgentServiceGrpc.getRewindConversationMethod = getRewindConversationMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.RewindConversationRequest, dev.agentd.v1.Conversation>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RewindConversation"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.RewindConversationRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Conversation.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("RewindConversation"))
              .build();
        }
      }
    }
    return getRewindConversationMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetArtifactRequest,
      dev.agentd.v1.ArtifactContent> getGetArtifactMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetArtifact",
      requestType = dev.agentd.v1.GetArtifactRequest.class,
      responseType = dev.agentd.v1.ArtifactContent.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetArtifactRequest,
      dev.agentd.v1.ArtifactContent> getGetArtifactMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetArtifactRequest, dev.agentd.v1.ArtifactContent> getGetArtifactMethod;
    if ((getGetArtifactMethod = AgentServiceGrpc.getGetArtifactMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getGetArtifactMethod = AgentServiceGrpc.getGetArtifactMethod) == null) {
          AgentServiceGrpc.getGetArtifactMethod = getGetArtifactMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetArtifactRequest, dev.agentd.v1.ArtifactContent>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetArtifact"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetArtifactRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ArtifactContent.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("GetArtifact"))
              .build();
        }
      }
    }
    return getGetArtifactMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ReadArtifactRequest,
      dev.agentd.v1.ArtifactChunk> getReadArtifactMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ReadArtifact",
      requestType = dev.agentd.v1.ReadArtifactRequest.class,
      responseType = dev.agentd.v1.ArtifactChunk.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ReadArtifactRequest,
      dev.agentd.v1.ArtifactChunk> getReadArtifactMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ReadArtifactRequest, dev.agentd.v1.ArtifactChunk> getReadArtifactMethod;
    if ((getReadArtifactMethod = AgentServiceGrpc.getReadArtifactMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getReadArtifactMethod = AgentServiceGrpc.getReadArtifactMethod) == null) {
          AgentServiceGrpc.getReadArtifactMethod = getReadArtifactMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ReadArtifactRequest, dev.agentd.v1.ArtifactChunk>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ReadArtifact"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ReadArtifactRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ArtifactChunk.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ReadArtifact"))
              .build();
        }
      }
    }
    return getReadArtifactMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CreateBudgetRequest,
      dev.agentd.v1.Budget> getCreateBudgetMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateBudget",
      requestType = dev.agentd.v1.CreateBudgetRequest.class,
      responseType = dev.agentd.v1.Budget.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CreateBudgetRequest,
      dev.agentd.v1.Budget> getCreateBudgetMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CreateBudgetRequest, dev.agentd.v1.Budget> getCreateBudgetMethod;
    if ((getCreateBudgetMethod = AgentServiceGrpc.getCreateBudgetMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getCreateBudgetMethod = AgentServiceGrpc.getCreateBudgetMethod) == null) {
          AgentServiceGrpc.getCreateBudgetMethod = getCreateBudgetMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CreateBudgetRequest, dev.agentd.v1.Budget>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateBudget"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CreateBudgetRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Budget.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("CreateBudget"))
              .build();
        }
      }
    }
    return getCreateBudgetMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.UpdateBudgetRequest,
      dev.agentd.v1.Budget> getUpdateBudgetMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpdateBudget",
      requestType = dev.agentd.v1.UpdateBudgetRequest.class,
      responseType = dev.agentd.v1.Budget.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.UpdateBudgetRequest,
      dev.agentd.v1.Budget> getUpdateBudgetMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.UpdateBudgetRequest, dev.agentd.v1.Budget> getUpdateBudgetMethod;
    if ((getUpdateBudgetMethod = AgentServiceGrpc.getUpdateBudgetMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getUpdateBudgetMethod = AgentServiceGrpc.getUpdateBudgetMethod) == null) {
          AgentServiceGrpc.getUpdateBudgetMethod = getUpdateBudgetMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.UpdateBudgetRequest, dev.agentd.v1.Budget>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpdateBudget"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.UpdateBudgetRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Budget.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("UpdateBudget"))
              .build();
        }
      }
    }
    return getUpdateBudgetMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteBudgetRequest,
      dev.agentd.v1.DeleteBudgetResponse> getDeleteBudgetMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteBudget",
      requestType = dev.agentd.v1.DeleteBudgetRequest.class,
      responseType = dev.agentd.v1.DeleteBudgetResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteBudgetRequest,
      dev.agentd.v1.DeleteBudgetResponse> getDeleteBudgetMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteBudgetRequest, dev.agentd.v1.DeleteBudgetResponse> getDeleteBudgetMethod;
    if ((getDeleteBudgetMethod = AgentServiceGrpc.getDeleteBudgetMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getDeleteBudgetMethod = AgentServiceGrpc.getDeleteBudgetMethod) == null) {
          AgentServiceGrpc.getDeleteBudgetMethod = getDeleteBudgetMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteBudgetRequest, dev.agentd.v1.DeleteBudgetResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteBudget"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteBudgetRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteBudgetResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("DeleteBudget"))
              .build();
        }
      }
    }
    return getDeleteBudgetMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListBudgetsRequest,
      dev.agentd.v1.ListBudgetsResponse> getListBudgetsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListBudgets",
      requestType = dev.agentd.v1.ListBudgetsRequest.class,
      responseType = dev.agentd.v1.ListBudgetsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListBudgetsRequest,
      dev.agentd.v1.ListBudgetsResponse> getListBudgetsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListBudgetsRequest, dev.agentd.v1.ListBudgetsResponse> getListBudgetsMethod;
    if ((getListBudgetsMethod = AgentServiceGrpc.getListBudgetsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListBudgetsMethod = AgentServiceGrpc.getListBudgetsMethod) == null) {
          AgentServiceGrpc.getListBudgetsMethod = getListBudgetsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListBudgetsRequest, dev.agentd.v1.ListBudgetsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListBudgets"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListBudgetsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListBudgetsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListBudgets"))
              .build();
        }
      }
    }
    return getListBudgetsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetUsageRequest,
      dev.agentd.v1.GetUsageResponse> getGetUsageMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetUsage",
      requestType = dev.agentd.v1.GetUsageRequest.class,
      responseType = dev.agentd.v1.GetUsageResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetUsageRequest,
      dev.agentd.v1.GetUsageResponse> getGetUsageMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetUsageRequest, dev.agentd.v1.GetUsageResponse> getGetUsageMethod;
    if ((getGetUsageMethod = AgentServiceGrpc.getGetUsageMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getGetUsageMethod = AgentServiceGrpc.getGetUsageMethod) == null) {
          AgentServiceGrpc.getGetUsageMethod = getGetUsageMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetUsageRequest, dev.agentd.v1.GetUsageResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetUsage"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetUsageRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetUsageResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("GetUsage"))
              .build();
        }
      }
    }
    return getGetUsageMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetStatsRequest,
      dev.agentd.v1.GetStatsResponse> getGetStatsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetStats",
      requestType = dev.agentd.v1.GetStatsRequest.class,
      responseType = dev.agentd.v1.GetStatsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetStatsRequest,
      dev.agentd.v1.GetStatsResponse> getGetStatsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetStatsRequest, dev.agentd.v1.GetStatsResponse> getGetStatsMethod;
    if ((getGetStatsMethod = AgentServiceGrpc.getGetStatsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getGetStatsMethod = AgentServiceGrpc.getGetStatsMethod) == null) {
          AgentServiceGrpc.getGetStatsMethod = getGetStatsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetStatsRequest, dev.agentd.v1.GetStatsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetStats"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetStatsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetStatsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("GetStats"))
              .build();
        }
      }
    }
    return getGetStatsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CreateWebhookRequest,
      dev.agentd.v1.Webhook> getCreateWebhookMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateWebhook",
      requestType = dev.agentd.v1.CreateWebhookRequest.class,
      responseType = dev.agentd.v1.Webhook.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CreateWebhookRequest,
      dev.agentd.v1.Webhook> getCreateWebhookMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CreateWebhookRequest, dev.agentd.v1.Webhook> getCreateWebhookMethod;
    if ((getCreateWebhookMethod = AgentServiceGrpc.getCreateWebhookMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getCreateWebhookMethod = AgentServiceGrpc.getCreateWebhookMethod) == null) {
          AgentServiceGrpc.getCreateWebhookMethod = getCreateWebhookMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CreateWebhookRequest, dev.agentd.v1.Webhook>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateWebhook"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CreateWebhookRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Webhook.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("CreateWebhook"))
              .build();
        }
      }
    }
    return getCreateWebhookMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetWebhookRequest,
      dev.agentd.v1.Webhook> getGetWebhookMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetWebhook",
      requestType = dev.agentd.v1.GetWebhookRequest.class,
      responseType = dev.agentd.v1.Webhook.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetWebhookRequest,
      dev.agentd.v1.Webhook> getGetWebhookMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetWebhookRequest, dev.agentd.v1.Webhook> getGetWebhookMethod;
    if ((getGetWebhookMethod = AgentServiceGrpc.getGetWebhookMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getGetWebhookMethod = AgentServiceGrpc.getGetWebhookMethod) == null) {
          AgentServiceGrpc.getGetWebhookMethod = getGetWebhookMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetWebhookRequest, dev.agentd.v1.Webhook>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetWebhook"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetWebhookRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Webhook.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("GetWebhook"))
              .build();
        }
      }
    }
    return getGetWebhookMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListWebhooksRequest,
      dev.agentd.v1.ListWebhooksResponse> getListWebhooksMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListWebhooks",
      requestType = dev.agentd.v1.ListWebhooksRequest.class,
      responseType = dev.agentd.v1.ListWebhooksResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListWebhooksRequest,
      dev.agentd.v1.ListWebhooksResponse> getListWebhooksMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListWebhooksRequest, dev.agentd.v1.ListWebhooksResponse> getListWebhooksMethod;
    if ((getListWebhooksMethod = AgentServiceGrpc.getListWebhooksMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListWebhooksMethod = AgentServiceGrpc.getListWebhooksMethod) == null) {
          AgentServiceGrpc.getListWebhooksMethod = getListWebhooksMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListWebhooksRequest, dev.agentd.v1.ListWebhooksResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListWebhooks"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListWebhooksRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListWebhooksResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListWebhooks"))
              .build();
        }
      }
    }
    return getListWebhooksMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.UpdateWebhookRequest,
      dev.agentd.v1.Webhook> getUpdateWebhookMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "UpdateWebhook",
      requestType = dev.agentd.v1.UpdateWebhookRequest.class,
      responseType = dev.agentd.v1.Webhook.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.UpdateWebhookRequest,
      dev.agentd.v1.Webhook> getUpdateWebhookMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.UpdateWebhookRequest, dev.agentd.v1.Webhook> getUpdateWebhookMethod;
    if ((getUpdateWebhookMethod = AgentServiceGrpc.getUpdateWebhookMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getUpdateWebhookMethod = AgentServiceGrpc.getUpdateWebhookMethod) == null) {
          AgentServiceGrpc.getUpdateWebhookMethod = getUpdateWebhookMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.UpdateWebhookRequest, dev.agentd.v1.Webhook>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "UpdateWebhook"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.UpdateWebhookRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Webhook.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("UpdateWebhook"))
              .build();
        }
      }
    }
    return getUpdateWebhookMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteWebhookRequest,
      dev.agentd.v1.DeleteWebhookResponse> getDeleteWebhookMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteWebhook",
      requestType = dev.agentd.v1.DeleteWebhookRequest.class,
      responseType = dev.agentd.v1.DeleteWebhookResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteWebhookRequest,
      dev.agentd.v1.DeleteWebhookResponse> getDeleteWebhookMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteWebhookRequest, dev.agentd.v1.DeleteWebhookResponse> getDeleteWebhookMethod;
    if ((getDeleteWebhookMethod = AgentServiceGrpc.getDeleteWebhookMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getDeleteWebhookMethod = AgentServiceGrpc.getDeleteWebhookMethod) == null) {
          AgentServiceGrpc.getDeleteWebhookMethod = getDeleteWebhookMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteWebhookRequest, dev.agentd.v1.DeleteWebhookResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteWebhook"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteWebhookRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteWebhookResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("DeleteWebhook"))
              .build();
        }
      }
    }
    return getDeleteWebhookMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.RotateWebhookSecretRequest,
      dev.agentd.v1.Webhook> getRotateWebhookSecretMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RotateWebhookSecret",
      requestType = dev.agentd.v1.RotateWebhookSecretRequest.class,
      responseType = dev.agentd.v1.Webhook.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.RotateWebhookSecretRequest,
      dev.agentd.v1.Webhook> getRotateWebhookSecretMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.RotateWebhookSecretRequest, dev.agentd.v1.Webhook> getRotateWebhookSecretMethod;
    if ((getRotateWebhookSecretMethod = AgentServiceGrpc.getRotateWebhookSecretMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getRotateWebhookSecretMethod = AgentServiceGrpc.getRotateWebhookSecretMethod) == null) {
          AgentServiceGrpc.getRotateWebhookSecretMethod = getRotateWebhookSecretMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.RotateWebhookSecretRequest, dev.agentd.v1.Webhook>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RotateWebhookSecret"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.RotateWebhookSecretRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.Webhook.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("RotateWebhookSecret"))
              .build();
        }
      }
    }
    return getRotateWebhookSecretMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListWebhookDeadLettersRequest,
      dev.agentd.v1.ListWebhookDeadLettersResponse> getListWebhookDeadLettersMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListWebhookDeadLetters",
      requestType = dev.agentd.v1.ListWebhookDeadLettersRequest.class,
      responseType = dev.agentd.v1.ListWebhookDeadLettersResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListWebhookDeadLettersRequest,
      dev.agentd.v1.ListWebhookDeadLettersResponse> getListWebhookDeadLettersMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListWebhookDeadLettersRequest, dev.agentd.v1.ListWebhookDeadLettersResponse> getListWebhookDeadLettersMethod;
    if ((getListWebhookDeadLettersMethod = AgentServiceGrpc.getListWebhookDeadLettersMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getListWebhookDeadLettersMethod = AgentServiceGrpc.getListWebhookDeadLettersMethod) == null) {
          AgentServiceGrpc.getListWebhookDeadLettersMethod = getListWebhookDeadLettersMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListWebhookDeadLettersRequest, dev.agentd.v1.ListWebhookDeadLettersResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListWebhookDeadLetters"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListWebhookDeadLettersRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListWebhookDeadLettersResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("ListWebhookDeadLetters"))
              .build();
        }
      }
    }
    return getListWebhookDeadLettersMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.RedeliverWebhookEventsRequest,
      dev.agentd.v1.RedeliverWebhookEventsResponse> getRedeliverWebhookEventsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "RedeliverWebhookEvents",
      requestType = dev.agentd.v1.RedeliverWebhookEventsRequest.class,
      responseType = dev.agentd.v1.RedeliverWebhookEventsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.RedeliverWebhookEventsRequest,
      dev.agentd.v1.RedeliverWebhookEventsResponse> getRedeliverWebhookEventsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.RedeliverWebhookEventsRequest, dev.agentd.v1.RedeliverWebhookEventsResponse> getRedeliverWebhookEventsMethod;
    if ((getRedeliverWebhookEventsMethod = AgentServiceGrpc.getRedeliverWebhookEventsMethod) == null) {
      synchronized (AgentServiceGrpc.class) {
        if ((getRedeliverWebhookEventsMethod = AgentServiceGrpc.getRedeliverWebhookEventsMethod) == null) {
          AgentServiceGrpc.getRedeliverWebhookEventsMethod = getRedeliverWebhookEventsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.RedeliverWebhookEventsRequest, dev.agentd.v1.RedeliverWebhookEventsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "RedeliverWebhookEvents"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.RedeliverWebhookEventsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.RedeliverWebhookEventsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AgentServiceMethodDescriptorSupplier("RedeliverWebhookEvents"))
              .build();
        }
      }
    }
    return getRedeliverWebhookEventsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AgentServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentServiceStub>() {
        @java.lang.Override
        public AgentServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentServiceStub(channel, callOptions);
        }
      };
    return AgentServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AgentServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentServiceBlockingStub>() {
        @java.lang.Override
        public AgentServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentServiceBlockingStub(channel, callOptions);
        }
      };
    return AgentServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AgentServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AgentServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AgentServiceFutureStub>() {
        @java.lang.Override
        public AgentServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AgentServiceFutureStub(channel, callOptions);
        }
      };
    return AgentServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Runs LLM agents and the tools they use.
   * Every failed call carries a `google.rpc.Status` with a
   * `google.rpc.ErrorInfo` (domain "agentd", reason from `ErrorReason`) and,
   * for invalid input, a `google.rpc.BadRequest` listing each field violation.
   * </pre>
   */
  public static abstract class AgentServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Starts a task and streams its events until the task ends. The first
     * event carries the new task's id; a client that loses the stream resumes
     * it with StreamTaskEvents. The call's deadline bounds this stream only:
     * the task keeps running after it passes (unless `cancel_on_disconnect`);
     * the task's own time limit is `ExecuteRequest.timeout`. A stream silent
     * for AGENTD_HEARTBEAT_SECONDS receives a heartbeat (see TaskEvent).
     * </pre>
     */
    public void execute(dev.agentd.v1.ExecuteRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.TaskEvent> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getExecuteMethod(), responseObserver);
    }

    /**
     * <pre>
     * Starts a task and returns it at once (PENDING), with no stream attached:
     * the same validation, idempotency and admission as Execute. Follow it
     * with StreamTaskEvents (from sequence 0 for the whole log) or poll
     * GetTask.
     * </pre>
     */
    public void startTask(dev.agentd.v1.ExecuteRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getStartTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Runs the planner only and returns the plan it would follow.
     * </pre>
     */
    public void plan(dev.agentd.v1.PlanRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.PlanResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPlanMethod(), responseObserver);
    }

    /**
     * <pre>
     * Calls one tool directly, with the caller's permissions.
     * </pre>
     */
    public void callTool(dev.agentd.v1.CallToolRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.CallToolResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCallToolMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns a task's current state.
     * </pre>
     */
    public void getTask(dev.agentd.v1.GetTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the tools the caller may use.
     * </pre>
     */
    public void listTools(dev.agentd.v1.ListToolsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListToolsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListToolsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Cancels a running task and returns its final state.
     * </pre>
     */
    public void cancelTask(dev.agentd.v1.CancelTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCancelTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Adds a user message to a task that runs, waits or is queued: it is in
     * the task's log (a task_steered event) before this returns, and the task
     * takes it at its next safe point (after the tool calls being made, before
     * the next model call; a task waiting for a person keeps waiting and takes
     * it when it goes on). Steers keep their order. FAILED_PRECONDITION
     * (`TASK_ALREADY_TERMINAL`) for a task that has ended, naming its state.
     * </pre>
     */
    public void steerTask(dev.agentd.v1.SteerTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.SteerTaskResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSteerTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Replays a task's events after `after_sequence`, then follows the task
     * live until it ends.
     * </pre>
     */
    public void streamTaskEvents(dev.agentd.v1.StreamTaskEventsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.TaskEvent> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getStreamTaskEventsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the caller's tasks, newest first, page by page.
     * </pre>
     */
    public void listTasks(dev.agentd.v1.ListTasksRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListTasksResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListTasksMethod(), responseObserver);
    }

    /**
     * <pre>
     * Decides on a tool call that waits for a human's approval (the task is
     * INPUT_REQUIRED and announced it with an `approval_requested` event):
     * approve it, reject it, or approve it with edited arguments. Needs one of
     * the server's approver roles; returns the task's state when the decision
     * was recorded. A waiting task holds no running place: the decision wakes
     * it, and it runs on whichever replica has room.
     * </pre>
     */
    public void approveToolCall(dev.agentd.v1.ApproveToolCallRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getApproveToolCallMethod(), responseObserver);
    }

    /**
     * <pre>
     * Answers a question the task's agent asked (an `input_requested` event;
     * the task is INPUT_REQUIRED), or one a remote A2A agent asked through a
     * child task; the task wakes and runs on, on whichever replica has room.
     * The task's owner or an approver may answer; NOT_FOUND
     * (`APPROVAL_NOT_PENDING`) when no such question waits. An unanswered
     * question expires at its wait's deadline (the task's `wait_timeout`);
     * the model is then told nobody answered.
     * </pre>
     */
    public void provideInput(dev.agentd.v1.ProvideInputRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getProvideInputMethod(), responseObserver);
    }

    /**
     * <pre>
     * Resumes a task that waits (INPUT_REQUIRED) after a tool call failed for a
     * reason a person can fix (a `tool_resumable` event): that call runs again,
     * and only that call; the task goes on from there, on whichever replica runs
     * it. The task's owner or an approver may resume it; FAILED_PRECONDITION
     * (`TASK_NOT_RESUMABLE`) when no call of it waits, for example once its
     * resume window closed and it ended FAILED (`TOOL_RESUMABLE`).
     * </pre>
     */
    public void resumeTask(dev.agentd.v1.ResumeTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResumeTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * A task's durable trace, page by page: its model calls (the messages as
     * sent, the reply, usage), tool calls with their whole results, critic
     * verdicts and decisions, redacted. Kept after the task's events are gone
     * (AGENTD_TRACE_RETENTION_SECONDS). NOT_FOUND (`TRACE_NOT_FOUND`) when
     * none is kept. The task's owner reads its own; auditors and admins any of
     * the tenant's.
     * </pre>
     */
    public void getTaskTrace(dev.agentd.v1.GetTaskTraceRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.GetTaskTraceResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetTaskTraceMethod(), responseObserver);
    }

    /**
     * <pre>
     * Reruns a recorded task's input as another agent version, as a new task
     * (`Task.replay`), its tool calls answered from the recording: nothing
     * that writes runs (see replays.proto). NOT_FOUND (`TRACE_NOT_FOUND`)
     * when the recording's trace is not kept.
     * </pre>
     */
    public void replayTask(dev.agentd.v1.ReplayTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReplayTaskMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists what tasks of the caller's tenant wait for a person to do, across
     * tasks and task trees, oldest first, page by page: approvals of tool
     * calls and of going past a budget's soft limit (to a holder of one of
     * the approver roles they name), questions and resumes (to the task's
     * owner, and to the roles that may answer or resume another's task: the
     * approver roles). Only what the caller may answer is listed; each action
     * is answered with ApproveToolCall, ProvideInput or ResumeTask, on any
     * replica, and is no longer listed once answered.
     * </pre>
     */
    public void listPendingActions(dev.agentd.v1.ListPendingActionsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListPendingActionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListPendingActionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * What became of pending actions: opened, reminded, escalated, answered
     * (by whom) or timed out (and what the deadline did), oldest first. A
     * task's owner reads its own task's; approvers, auditors and admins any
     * of the tenant's.
     * </pre>
     */
    public void listActionHistory(dev.agentd.v1.ListActionHistoryRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListActionHistoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListActionHistoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists audit records of the caller's tenant, oldest first, page by page.
     * Needs the auditor or admin role.
     * </pre>
     */
    public void listAuditRecords(dev.agentd.v1.ListAuditRecordsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListAuditRecordsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAuditRecordsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Grants a principal or a role of the caller's tenant a level on tools
     * (admin role). Takes effect on this replica at once, on the others
     * within AGENTD_GRANTS_REFRESH_SECONDS.
     * </pre>
     */
    public void createGrant(dev.agentd.v1.CreateGrantRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Grant> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateGrantMethod(), responseObserver);
    }

    /**
     * <pre>
     * Revokes a grant of the caller's tenant (admin role); returns it revoked.
     * </pre>
     */
    public void revokeGrant(dev.agentd.v1.RevokeGrantRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Grant> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRevokeGrantMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the grants of the caller's tenant, oldest first (admin role).
     * </pre>
     */
    public void listGrants(dev.agentd.v1.ListGrantsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListGrantsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListGrantsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Agents of the caller's tenant, managed here (admin role to change them);
     * agents from files (AGENTD_AGENTS_DIR) are listed and read, not changed.
     * Creates version 1 of a new agent; ALREADY_EXISTS (`AGENT_EXISTS`) for an
     * id the tenant has.
     * </pre>
     */
    public void createAgent(dev.agentd.v1.CreateAgentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Agent> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * An agent, its latest version or `id&#64;version`; NOT_FOUND
     * (`AGENT_NOT_FOUND`) otherwise, and for another tenant's agent.
     * </pre>
     */
    public void getAgent(dev.agentd.v1.GetAgentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Agent> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * The agents the caller's tenant may use.
     * </pre>
     */
    public void listAgents(dev.agentd.v1.ListAgentsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListAgentsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListAgentsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Stores the next version of an agent of the tenant (admin role).
     * </pre>
     */
    public void updateAgent(dev.agentd.v1.UpdateAgentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Agent> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpdateAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes an agent of the tenant (admin role): new tasks can no longer
     * name it; its versions stay readable with `id&#64;version`.
     * </pre>
     */
    public void deleteAgent(dev.agentd.v1.DeleteAgentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteAgentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteAgentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Makes a version the one the bare id serves (admin role). With
     * AGENTD_PROMOTION_GATE on, UpdateAgent adds versions without changing
     * what the bare id serves, and a version is promoted only once an
     * evaluation run of it passed its gate: FAILED_PRECONDITION
     * (`PROMOTION_REFUSED`) otherwise.
     * </pre>
     */
    public void promoteAgentVersion(dev.agentd.v1.PromoteAgentVersionRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Agent> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPromoteAgentVersionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Conversations of the caller's tenant: threads of tasks, each task seeing
     * the earlier turns (`ExecuteRequest.conversation_id`). Another tenant's
     * conversation is NOT_FOUND (`CONVERSATION_NOT_FOUND`), as an unknown id is.
     * Creates an empty conversation of the caller.
     * </pre>
     */
    public void createConversation(dev.agentd.v1.CreateConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Conversation> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateConversationMethod(), responseObserver);
    }

    /**
     * <pre>
     * A conversation and a page of its messages, oldest first.
     * </pre>
     */
    public void getConversation(dev.agentd.v1.GetConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.GetConversationResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetConversationMethod(), responseObserver);
    }

    /**
     * <pre>
     * The caller's conversations, newest first, page by page.
     * </pre>
     */
    public void listConversations(dev.agentd.v1.ListConversationsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListConversationsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListConversationsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes a conversation and its messages; FAILED_PRECONDITION
     * (`CONVERSATION_BUSY`) while a task of it runs or waits.
     * </pre>
     */
    public void deleteConversation(dev.agentd.v1.DeleteConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteConversationResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteConversationMethod(), responseObserver);
    }

    /**
     * <pre>
     * Makes a new conversation of the caller that shares the history of one
     * up to a turn, without copying it (in time that does not grow with the
     * conversation's length), with the running summary as it stood there.
     * FAILED_PRECONDITION (`CONVERSATION_BUSY`) while a task of it runs or
     * waits.
     * </pre>
     */
    public void forkConversation(dev.agentd.v1.ForkConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Conversation> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getForkConversationMethod(), responseObserver);
    }

    /**
     * <pre>
     * Takes the turns after a point out of what the conversation's next tasks
     * are sent; they stay in its history (GetConversation marks them
     * `rewound`) and in the audit. The running summary goes back to what it
     * was at the point. FAILED_PRECONDITION (`CONVERSATION_BUSY`) while a task
     * of it runs or waits.
     * </pre>
     */
    public void rewindConversation(dev.agentd.v1.RewindConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Conversation> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRewindConversationMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns one version of an artifact of a task's tree (the latest unless
     * `version` is set), with its content. NOT_FOUND: `TASK_NOT_FOUND` for a
     * task the caller's tenant does not have, `ARTIFACT_NOT_FOUND` for a name
     * or version the tree does not have.
     * </pre>
     */
    public void getArtifact(dev.agentd.v1.GetArtifactRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ArtifactContent> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetArtifactMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams one version of an artifact in chunks with offsets, for content of
     * any size (up to AGENTD_ARTIFACT_MAX_BYTES); the same errors as
     * GetArtifact, and OUT_OF_RANGE never (an offset past the end gets an
     * empty last chunk).
     * </pre>
     */
    public void readArtifact(dev.agentd.v1.ReadArtifactRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ArtifactChunk> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReadArtifactMethod(), responseObserver);
    }

    /**
     * <pre>
     * Budgets of the caller's tenant (admin role to change them; admin or
     * auditor to list them): limits in tokens or money per tenant, end user
     * and agent, over a UTC day, a month or all time, held across replicas.
     * Creates a budget; ALREADY_EXISTS (`BUDGET_EXISTS`) for one of the same
     * scope, subject, unit and window.
     * </pre>
     */
    public void createBudget(dev.agentd.v1.CreateBudgetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Budget> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateBudgetMethod(), responseObserver);
    }

    /**
     * <pre>
     * Changes a budget's limits; NOT_FOUND (`BUDGET_NOT_FOUND`).
     * </pre>
     */
    public void updateBudget(dev.agentd.v1.UpdateBudgetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Budget> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpdateBudgetMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes a budget; its tasks draw on it no longer.
     * </pre>
     */
    public void deleteBudget(dev.agentd.v1.DeleteBudgetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteBudgetResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteBudgetMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists the tenant's budgets with what their current windows spent.
     * </pre>
     */
    public void listBudgets(dev.agentd.v1.ListBudgetsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListBudgetsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListBudgetsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Spend and tokens of the caller's tenant's model calls over a range,
     * grouped, from the usage ledger (admin or auditor role).
     * </pre>
     */
    public void getUsage(dev.agentd.v1.GetUsageRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.GetUsageResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetUsageMethod(), responseObserver);
    }

    /**
     * <pre>
     * Statistics of the caller's tenant over a range: tasks by stop reason,
     * success rate, durations, iterations, tokens and cost, by agent, tool and
     * provider (admin or auditor role).
     * </pre>
     */
    public void getStats(dev.agentd.v1.GetStatsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.GetStatsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetStatsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Webhooks of the caller's tenant (admin role): endpoints sent its task
     * and inbox events, signed, at least once, in order per task.
     * Creates one; answers with its secret (shown only here and on rotation).
     * FAILED_PRECONDITION (`KEY_REQUIRED`) when the server holds no key
     * (AGENTD_KEYS) to keep the secret encrypted with.
     * </pre>
     */
    public void createWebhook(dev.agentd.v1.CreateWebhookRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateWebhookMethod(), responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`WEBHOOK_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getWebhook(dev.agentd.v1.GetWebhookRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetWebhookMethod(), responseObserver);
    }

    /**
     */
    public void listWebhooks(dev.agentd.v1.ListWebhooksRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListWebhooksResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListWebhooksMethod(), responseObserver);
    }

    /**
     * <pre>
     * Changes its url, filters, description or pause.
     * </pre>
     */
    public void updateWebhook(dev.agentd.v1.UpdateWebhookRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getUpdateWebhookMethod(), responseObserver);
    }

    /**
     * <pre>
     * Deletes it with its queue and dead letters.
     * </pre>
     */
    public void deleteWebhook(dev.agentd.v1.DeleteWebhookRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteWebhookResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteWebhookMethod(), responseObserver);
    }

    /**
     * <pre>
     * A new signing secret, at once (answered with it).
     * </pre>
     */
    public void rotateWebhookSecret(dev.agentd.v1.RotateWebhookSecretRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRotateWebhookSecretMethod(), responseObserver);
    }

    /**
     * <pre>
     * The events given up on after their retention, oldest first.
     * </pre>
     */
    public void listWebhookDeadLetters(dev.agentd.v1.ListWebhookDeadLettersRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListWebhookDeadLettersResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListWebhookDeadLettersMethod(), responseObserver);
    }

    /**
     * <pre>
     * Queues dead letters to be delivered again.
     * </pre>
     */
    public void redeliverWebhookEvents(dev.agentd.v1.RedeliverWebhookEventsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.RedeliverWebhookEventsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getRedeliverWebhookEventsMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getExecuteMethod(),
            io.grpc.stub.ServerCalls.asyncServerStreamingCall(
              new MethodHandlers<
                dev.agentd.v1.ExecuteRequest,
                dev.agentd.v1.TaskEvent>(
                  this, METHODID_EXECUTE)))
          .addMethod(
            getStartTaskMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ExecuteRequest,
                dev.agentd.v1.Task>(
                  this, METHODID_START_TASK)))
          .addMethod(
            getPlanMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.PlanRequest,
                dev.agentd.v1.PlanResponse>(
                  this, METHODID_PLAN)))
          .addMethod(
            getCallToolMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CallToolRequest,
                dev.agentd.v1.CallToolResponse>(
                  this, METHODID_CALL_TOOL)))
          .addMethod(
            getGetTaskMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetTaskRequest,
                dev.agentd.v1.Task>(
                  this, METHODID_GET_TASK)))
          .addMethod(
            getListToolsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListToolsRequest,
                dev.agentd.v1.ListToolsResponse>(
                  this, METHODID_LIST_TOOLS)))
          .addMethod(
            getCancelTaskMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CancelTaskRequest,
                dev.agentd.v1.Task>(
                  this, METHODID_CANCEL_TASK)))
          .addMethod(
            getSteerTaskMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.SteerTaskRequest,
                dev.agentd.v1.SteerTaskResponse>(
                  this, METHODID_STEER_TASK)))
          .addMethod(
            getStreamTaskEventsMethod(),
            io.grpc.stub.ServerCalls.asyncServerStreamingCall(
              new MethodHandlers<
                dev.agentd.v1.StreamTaskEventsRequest,
                dev.agentd.v1.TaskEvent>(
                  this, METHODID_STREAM_TASK_EVENTS)))
          .addMethod(
            getListTasksMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListTasksRequest,
                dev.agentd.v1.ListTasksResponse>(
                  this, METHODID_LIST_TASKS)))
          .addMethod(
            getApproveToolCallMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ApproveToolCallRequest,
                dev.agentd.v1.Task>(
                  this, METHODID_APPROVE_TOOL_CALL)))
          .addMethod(
            getProvideInputMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ProvideInputRequest,
                dev.agentd.v1.Task>(
                  this, METHODID_PROVIDE_INPUT)))
          .addMethod(
            getResumeTaskMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ResumeTaskRequest,
                dev.agentd.v1.Task>(
                  this, METHODID_RESUME_TASK)))
          .addMethod(
            getGetTaskTraceMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetTaskTraceRequest,
                dev.agentd.v1.GetTaskTraceResponse>(
                  this, METHODID_GET_TASK_TRACE)))
          .addMethod(
            getReplayTaskMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ReplayTaskRequest,
                dev.agentd.v1.Task>(
                  this, METHODID_REPLAY_TASK)))
          .addMethod(
            getListPendingActionsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListPendingActionsRequest,
                dev.agentd.v1.ListPendingActionsResponse>(
                  this, METHODID_LIST_PENDING_ACTIONS)))
          .addMethod(
            getListActionHistoryMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListActionHistoryRequest,
                dev.agentd.v1.ListActionHistoryResponse>(
                  this, METHODID_LIST_ACTION_HISTORY)))
          .addMethod(
            getListAuditRecordsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListAuditRecordsRequest,
                dev.agentd.v1.ListAuditRecordsResponse>(
                  this, METHODID_LIST_AUDIT_RECORDS)))
          .addMethod(
            getCreateGrantMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CreateGrantRequest,
                dev.agentd.v1.Grant>(
                  this, METHODID_CREATE_GRANT)))
          .addMethod(
            getRevokeGrantMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.RevokeGrantRequest,
                dev.agentd.v1.Grant>(
                  this, METHODID_REVOKE_GRANT)))
          .addMethod(
            getListGrantsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListGrantsRequest,
                dev.agentd.v1.ListGrantsResponse>(
                  this, METHODID_LIST_GRANTS)))
          .addMethod(
            getCreateAgentMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CreateAgentRequest,
                dev.agentd.v1.Agent>(
                  this, METHODID_CREATE_AGENT)))
          .addMethod(
            getGetAgentMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetAgentRequest,
                dev.agentd.v1.Agent>(
                  this, METHODID_GET_AGENT)))
          .addMethod(
            getListAgentsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListAgentsRequest,
                dev.agentd.v1.ListAgentsResponse>(
                  this, METHODID_LIST_AGENTS)))
          .addMethod(
            getUpdateAgentMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.UpdateAgentRequest,
                dev.agentd.v1.Agent>(
                  this, METHODID_UPDATE_AGENT)))
          .addMethod(
            getDeleteAgentMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteAgentRequest,
                dev.agentd.v1.DeleteAgentResponse>(
                  this, METHODID_DELETE_AGENT)))
          .addMethod(
            getPromoteAgentVersionMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.PromoteAgentVersionRequest,
                dev.agentd.v1.Agent>(
                  this, METHODID_PROMOTE_AGENT_VERSION)))
          .addMethod(
            getCreateConversationMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CreateConversationRequest,
                dev.agentd.v1.Conversation>(
                  this, METHODID_CREATE_CONVERSATION)))
          .addMethod(
            getGetConversationMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetConversationRequest,
                dev.agentd.v1.GetConversationResponse>(
                  this, METHODID_GET_CONVERSATION)))
          .addMethod(
            getListConversationsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListConversationsRequest,
                dev.agentd.v1.ListConversationsResponse>(
                  this, METHODID_LIST_CONVERSATIONS)))
          .addMethod(
            getDeleteConversationMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteConversationRequest,
                dev.agentd.v1.DeleteConversationResponse>(
                  this, METHODID_DELETE_CONVERSATION)))
          .addMethod(
            getForkConversationMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ForkConversationRequest,
                dev.agentd.v1.Conversation>(
                  this, METHODID_FORK_CONVERSATION)))
          .addMethod(
            getRewindConversationMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.RewindConversationRequest,
                dev.agentd.v1.Conversation>(
                  this, METHODID_REWIND_CONVERSATION)))
          .addMethod(
            getGetArtifactMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetArtifactRequest,
                dev.agentd.v1.ArtifactContent>(
                  this, METHODID_GET_ARTIFACT)))
          .addMethod(
            getReadArtifactMethod(),
            io.grpc.stub.ServerCalls.asyncServerStreamingCall(
              new MethodHandlers<
                dev.agentd.v1.ReadArtifactRequest,
                dev.agentd.v1.ArtifactChunk>(
                  this, METHODID_READ_ARTIFACT)))
          .addMethod(
            getCreateBudgetMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CreateBudgetRequest,
                dev.agentd.v1.Budget>(
                  this, METHODID_CREATE_BUDGET)))
          .addMethod(
            getUpdateBudgetMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.UpdateBudgetRequest,
                dev.agentd.v1.Budget>(
                  this, METHODID_UPDATE_BUDGET)))
          .addMethod(
            getDeleteBudgetMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteBudgetRequest,
                dev.agentd.v1.DeleteBudgetResponse>(
                  this, METHODID_DELETE_BUDGET)))
          .addMethod(
            getListBudgetsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListBudgetsRequest,
                dev.agentd.v1.ListBudgetsResponse>(
                  this, METHODID_LIST_BUDGETS)))
          .addMethod(
            getGetUsageMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetUsageRequest,
                dev.agentd.v1.GetUsageResponse>(
                  this, METHODID_GET_USAGE)))
          .addMethod(
            getGetStatsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetStatsRequest,
                dev.agentd.v1.GetStatsResponse>(
                  this, METHODID_GET_STATS)))
          .addMethod(
            getCreateWebhookMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CreateWebhookRequest,
                dev.agentd.v1.Webhook>(
                  this, METHODID_CREATE_WEBHOOK)))
          .addMethod(
            getGetWebhookMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetWebhookRequest,
                dev.agentd.v1.Webhook>(
                  this, METHODID_GET_WEBHOOK)))
          .addMethod(
            getListWebhooksMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListWebhooksRequest,
                dev.agentd.v1.ListWebhooksResponse>(
                  this, METHODID_LIST_WEBHOOKS)))
          .addMethod(
            getUpdateWebhookMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.UpdateWebhookRequest,
                dev.agentd.v1.Webhook>(
                  this, METHODID_UPDATE_WEBHOOK)))
          .addMethod(
            getDeleteWebhookMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteWebhookRequest,
                dev.agentd.v1.DeleteWebhookResponse>(
                  this, METHODID_DELETE_WEBHOOK)))
          .addMethod(
            getRotateWebhookSecretMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.RotateWebhookSecretRequest,
                dev.agentd.v1.Webhook>(
                  this, METHODID_ROTATE_WEBHOOK_SECRET)))
          .addMethod(
            getListWebhookDeadLettersMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListWebhookDeadLettersRequest,
                dev.agentd.v1.ListWebhookDeadLettersResponse>(
                  this, METHODID_LIST_WEBHOOK_DEAD_LETTERS)))
          .addMethod(
            getRedeliverWebhookEventsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.RedeliverWebhookEventsRequest,
                dev.agentd.v1.RedeliverWebhookEventsResponse>(
                  this, METHODID_REDELIVER_WEBHOOK_EVENTS)))
          .build();
    }
  }

  /**
   * <pre>
   * Runs LLM agents and the tools they use.
   * Every failed call carries a `google.rpc.Status` with a
   * `google.rpc.ErrorInfo` (domain "agentd", reason from `ErrorReason`) and,
   * for invalid input, a `google.rpc.BadRequest` listing each field violation.
   * </pre>
   */
  public static final class AgentServiceStub extends io.grpc.stub.AbstractAsyncStub<AgentServiceStub> {
    private AgentServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Starts a task and streams its events until the task ends. The first
     * event carries the new task's id; a client that loses the stream resumes
     * it with StreamTaskEvents. The call's deadline bounds this stream only:
     * the task keeps running after it passes (unless `cancel_on_disconnect`);
     * the task's own time limit is `ExecuteRequest.timeout`. A stream silent
     * for AGENTD_HEARTBEAT_SECONDS receives a heartbeat (see TaskEvent).
     * </pre>
     */
    public void execute(dev.agentd.v1.ExecuteRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.TaskEvent> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getExecuteMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Starts a task and returns it at once (PENDING), with no stream attached:
     * the same validation, idempotency and admission as Execute. Follow it
     * with StreamTaskEvents (from sequence 0 for the whole log) or poll
     * GetTask.
     * </pre>
     */
    public void startTask(dev.agentd.v1.ExecuteRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getStartTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Runs the planner only and returns the plan it would follow.
     * </pre>
     */
    public void plan(dev.agentd.v1.PlanRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.PlanResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPlanMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Calls one tool directly, with the caller's permissions.
     * </pre>
     */
    public void callTool(dev.agentd.v1.CallToolRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.CallToolResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCallToolMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns a task's current state.
     * </pre>
     */
    public void getTask(dev.agentd.v1.GetTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the tools the caller may use.
     * </pre>
     */
    public void listTools(dev.agentd.v1.ListToolsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListToolsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListToolsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Cancels a running task and returns its final state.
     * </pre>
     */
    public void cancelTask(dev.agentd.v1.CancelTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCancelTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Adds a user message to a task that runs, waits or is queued: it is in
     * the task's log (a task_steered event) before this returns, and the task
     * takes it at its next safe point (after the tool calls being made, before
     * the next model call; a task waiting for a person keeps waiting and takes
     * it when it goes on). Steers keep their order. FAILED_PRECONDITION
     * (`TASK_ALREADY_TERMINAL`) for a task that has ended, naming its state.
     * </pre>
     */
    public void steerTask(dev.agentd.v1.SteerTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.SteerTaskResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSteerTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Replays a task's events after `after_sequence`, then follows the task
     * live until it ends.
     * </pre>
     */
    public void streamTaskEvents(dev.agentd.v1.StreamTaskEventsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.TaskEvent> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getStreamTaskEventsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the caller's tasks, newest first, page by page.
     * </pre>
     */
    public void listTasks(dev.agentd.v1.ListTasksRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListTasksResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListTasksMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Decides on a tool call that waits for a human's approval (the task is
     * INPUT_REQUIRED and announced it with an `approval_requested` event):
     * approve it, reject it, or approve it with edited arguments. Needs one of
     * the server's approver roles; returns the task's state when the decision
     * was recorded. A waiting task holds no running place: the decision wakes
     * it, and it runs on whichever replica has room.
     * </pre>
     */
    public void approveToolCall(dev.agentd.v1.ApproveToolCallRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getApproveToolCallMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Answers a question the task's agent asked (an `input_requested` event;
     * the task is INPUT_REQUIRED), or one a remote A2A agent asked through a
     * child task; the task wakes and runs on, on whichever replica has room.
     * The task's owner or an approver may answer; NOT_FOUND
     * (`APPROVAL_NOT_PENDING`) when no such question waits. An unanswered
     * question expires at its wait's deadline (the task's `wait_timeout`);
     * the model is then told nobody answered.
     * </pre>
     */
    public void provideInput(dev.agentd.v1.ProvideInputRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getProvideInputMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Resumes a task that waits (INPUT_REQUIRED) after a tool call failed for a
     * reason a person can fix (a `tool_resumable` event): that call runs again,
     * and only that call; the task goes on from there, on whichever replica runs
     * it. The task's owner or an approver may resume it; FAILED_PRECONDITION
     * (`TASK_NOT_RESUMABLE`) when no call of it waits, for example once its
     * resume window closed and it ended FAILED (`TOOL_RESUMABLE`).
     * </pre>
     */
    public void resumeTask(dev.agentd.v1.ResumeTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResumeTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * A task's durable trace, page by page: its model calls (the messages as
     * sent, the reply, usage), tool calls with their whole results, critic
     * verdicts and decisions, redacted. Kept after the task's events are gone
     * (AGENTD_TRACE_RETENTION_SECONDS). NOT_FOUND (`TRACE_NOT_FOUND`) when
     * none is kept. The task's owner reads its own; auditors and admins any of
     * the tenant's.
     * </pre>
     */
    public void getTaskTrace(dev.agentd.v1.GetTaskTraceRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.GetTaskTraceResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetTaskTraceMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Reruns a recorded task's input as another agent version, as a new task
     * (`Task.replay`), its tool calls answered from the recording: nothing
     * that writes runs (see replays.proto). NOT_FOUND (`TRACE_NOT_FOUND`)
     * when the recording's trace is not kept.
     * </pre>
     */
    public void replayTask(dev.agentd.v1.ReplayTaskRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Task> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReplayTaskMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists what tasks of the caller's tenant wait for a person to do, across
     * tasks and task trees, oldest first, page by page: approvals of tool
     * calls and of going past a budget's soft limit (to a holder of one of
     * the approver roles they name), questions and resumes (to the task's
     * owner, and to the roles that may answer or resume another's task: the
     * approver roles). Only what the caller may answer is listed; each action
     * is answered with ApproveToolCall, ProvideInput or ResumeTask, on any
     * replica, and is no longer listed once answered.
     * </pre>
     */
    public void listPendingActions(dev.agentd.v1.ListPendingActionsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListPendingActionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListPendingActionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * What became of pending actions: opened, reminded, escalated, answered
     * (by whom) or timed out (and what the deadline did), oldest first. A
     * task's owner reads its own task's; approvers, auditors and admins any
     * of the tenant's.
     * </pre>
     */
    public void listActionHistory(dev.agentd.v1.ListActionHistoryRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListActionHistoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListActionHistoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists audit records of the caller's tenant, oldest first, page by page.
     * Needs the auditor or admin role.
     * </pre>
     */
    public void listAuditRecords(dev.agentd.v1.ListAuditRecordsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListAuditRecordsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAuditRecordsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Grants a principal or a role of the caller's tenant a level on tools
     * (admin role). Takes effect on this replica at once, on the others
     * within AGENTD_GRANTS_REFRESH_SECONDS.
     * </pre>
     */
    public void createGrant(dev.agentd.v1.CreateGrantRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Grant> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateGrantMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Revokes a grant of the caller's tenant (admin role); returns it revoked.
     * </pre>
     */
    public void revokeGrant(dev.agentd.v1.RevokeGrantRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Grant> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRevokeGrantMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the grants of the caller's tenant, oldest first (admin role).
     * </pre>
     */
    public void listGrants(dev.agentd.v1.ListGrantsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListGrantsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListGrantsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Agents of the caller's tenant, managed here (admin role to change them);
     * agents from files (AGENTD_AGENTS_DIR) are listed and read, not changed.
     * Creates version 1 of a new agent; ALREADY_EXISTS (`AGENT_EXISTS`) for an
     * id the tenant has.
     * </pre>
     */
    public void createAgent(dev.agentd.v1.CreateAgentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Agent> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * An agent, its latest version or `id&#64;version`; NOT_FOUND
     * (`AGENT_NOT_FOUND`) otherwise, and for another tenant's agent.
     * </pre>
     */
    public void getAgent(dev.agentd.v1.GetAgentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Agent> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The agents the caller's tenant may use.
     * </pre>
     */
    public void listAgents(dev.agentd.v1.ListAgentsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListAgentsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListAgentsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Stores the next version of an agent of the tenant (admin role).
     * </pre>
     */
    public void updateAgent(dev.agentd.v1.UpdateAgentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Agent> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpdateAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes an agent of the tenant (admin role): new tasks can no longer
     * name it; its versions stay readable with `id&#64;version`.
     * </pre>
     */
    public void deleteAgent(dev.agentd.v1.DeleteAgentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteAgentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteAgentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Makes a version the one the bare id serves (admin role). With
     * AGENTD_PROMOTION_GATE on, UpdateAgent adds versions without changing
     * what the bare id serves, and a version is promoted only once an
     * evaluation run of it passed its gate: FAILED_PRECONDITION
     * (`PROMOTION_REFUSED`) otherwise.
     * </pre>
     */
    public void promoteAgentVersion(dev.agentd.v1.PromoteAgentVersionRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Agent> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPromoteAgentVersionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Conversations of the caller's tenant: threads of tasks, each task seeing
     * the earlier turns (`ExecuteRequest.conversation_id`). Another tenant's
     * conversation is NOT_FOUND (`CONVERSATION_NOT_FOUND`), as an unknown id is.
     * Creates an empty conversation of the caller.
     * </pre>
     */
    public void createConversation(dev.agentd.v1.CreateConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Conversation> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateConversationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * A conversation and a page of its messages, oldest first.
     * </pre>
     */
    public void getConversation(dev.agentd.v1.GetConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.GetConversationResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetConversationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The caller's conversations, newest first, page by page.
     * </pre>
     */
    public void listConversations(dev.agentd.v1.ListConversationsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListConversationsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListConversationsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes a conversation and its messages; FAILED_PRECONDITION
     * (`CONVERSATION_BUSY`) while a task of it runs or waits.
     * </pre>
     */
    public void deleteConversation(dev.agentd.v1.DeleteConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteConversationResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteConversationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Makes a new conversation of the caller that shares the history of one
     * up to a turn, without copying it (in time that does not grow with the
     * conversation's length), with the running summary as it stood there.
     * FAILED_PRECONDITION (`CONVERSATION_BUSY`) while a task of it runs or
     * waits.
     * </pre>
     */
    public void forkConversation(dev.agentd.v1.ForkConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Conversation> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getForkConversationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Takes the turns after a point out of what the conversation's next tasks
     * are sent; they stay in its history (GetConversation marks them
     * `rewound`) and in the audit. The running summary goes back to what it
     * was at the point. FAILED_PRECONDITION (`CONVERSATION_BUSY`) while a task
     * of it runs or waits.
     * </pre>
     */
    public void rewindConversation(dev.agentd.v1.RewindConversationRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Conversation> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRewindConversationMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns one version of an artifact of a task's tree (the latest unless
     * `version` is set), with its content. NOT_FOUND: `TASK_NOT_FOUND` for a
     * task the caller's tenant does not have, `ARTIFACT_NOT_FOUND` for a name
     * or version the tree does not have.
     * </pre>
     */
    public void getArtifact(dev.agentd.v1.GetArtifactRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ArtifactContent> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetArtifactMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams one version of an artifact in chunks with offsets, for content of
     * any size (up to AGENTD_ARTIFACT_MAX_BYTES); the same errors as
     * GetArtifact, and OUT_OF_RANGE never (an offset past the end gets an
     * empty last chunk).
     * </pre>
     */
    public void readArtifact(dev.agentd.v1.ReadArtifactRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ArtifactChunk> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getReadArtifactMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Budgets of the caller's tenant (admin role to change them; admin or
     * auditor to list them): limits in tokens or money per tenant, end user
     * and agent, over a UTC day, a month or all time, held across replicas.
     * Creates a budget; ALREADY_EXISTS (`BUDGET_EXISTS`) for one of the same
     * scope, subject, unit and window.
     * </pre>
     */
    public void createBudget(dev.agentd.v1.CreateBudgetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Budget> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateBudgetMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Changes a budget's limits; NOT_FOUND (`BUDGET_NOT_FOUND`).
     * </pre>
     */
    public void updateBudget(dev.agentd.v1.UpdateBudgetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Budget> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpdateBudgetMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes a budget; its tasks draw on it no longer.
     * </pre>
     */
    public void deleteBudget(dev.agentd.v1.DeleteBudgetRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteBudgetResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteBudgetMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists the tenant's budgets with what their current windows spent.
     * </pre>
     */
    public void listBudgets(dev.agentd.v1.ListBudgetsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListBudgetsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListBudgetsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Spend and tokens of the caller's tenant's model calls over a range,
     * grouped, from the usage ledger (admin or auditor role).
     * </pre>
     */
    public void getUsage(dev.agentd.v1.GetUsageRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.GetUsageResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetUsageMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Statistics of the caller's tenant over a range: tasks by stop reason,
     * success rate, durations, iterations, tokens and cost, by agent, tool and
     * provider (admin or auditor role).
     * </pre>
     */
    public void getStats(dev.agentd.v1.GetStatsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.GetStatsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetStatsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Webhooks of the caller's tenant (admin role): endpoints sent its task
     * and inbox events, signed, at least once, in order per task.
     * Creates one; answers with its secret (shown only here and on rotation).
     * FAILED_PRECONDITION (`KEY_REQUIRED`) when the server holds no key
     * (AGENTD_KEYS) to keep the secret encrypted with.
     * </pre>
     */
    public void createWebhook(dev.agentd.v1.CreateWebhookRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateWebhookMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * NOT_FOUND (`WEBHOOK_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public void getWebhook(dev.agentd.v1.GetWebhookRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetWebhookMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     */
    public void listWebhooks(dev.agentd.v1.ListWebhooksRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListWebhooksResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListWebhooksMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Changes its url, filters, description or pause.
     * </pre>
     */
    public void updateWebhook(dev.agentd.v1.UpdateWebhookRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getUpdateWebhookMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Deletes it with its queue and dead letters.
     * </pre>
     */
    public void deleteWebhook(dev.agentd.v1.DeleteWebhookRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteWebhookResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteWebhookMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * A new signing secret, at once (answered with it).
     * </pre>
     */
    public void rotateWebhookSecret(dev.agentd.v1.RotateWebhookSecretRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRotateWebhookSecretMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The events given up on after their retention, oldest first.
     * </pre>
     */
    public void listWebhookDeadLetters(dev.agentd.v1.ListWebhookDeadLettersRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListWebhookDeadLettersResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListWebhookDeadLettersMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Queues dead letters to be delivered again.
     * </pre>
     */
    public void redeliverWebhookEvents(dev.agentd.v1.RedeliverWebhookEventsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.RedeliverWebhookEventsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getRedeliverWebhookEventsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * Runs LLM agents and the tools they use.
   * Every failed call carries a `google.rpc.Status` with a
   * `google.rpc.ErrorInfo` (domain "agentd", reason from `ErrorReason`) and,
   * for invalid input, a `google.rpc.BadRequest` listing each field violation.
   * </pre>
   */
  public static final class AgentServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<AgentServiceBlockingStub> {
    private AgentServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Starts a task and streams its events until the task ends. The first
     * event carries the new task's id; a client that loses the stream resumes
     * it with StreamTaskEvents. The call's deadline bounds this stream only:
     * the task keeps running after it passes (unless `cancel_on_disconnect`);
     * the task's own time limit is `ExecuteRequest.timeout`. A stream silent
     * for AGENTD_HEARTBEAT_SECONDS receives a heartbeat (see TaskEvent).
     * </pre>
     */
    public java.util.Iterator<dev.agentd.v1.TaskEvent> execute(
        dev.agentd.v1.ExecuteRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getExecuteMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Starts a task and returns it at once (PENDING), with no stream attached:
     * the same validation, idempotency and admission as Execute. Follow it
     * with StreamTaskEvents (from sequence 0 for the whole log) or poll
     * GetTask.
     * </pre>
     */
    public dev.agentd.v1.Task startTask(dev.agentd.v1.ExecuteRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getStartTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Runs the planner only and returns the plan it would follow.
     * </pre>
     */
    public dev.agentd.v1.PlanResponse plan(dev.agentd.v1.PlanRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPlanMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Calls one tool directly, with the caller's permissions.
     * </pre>
     */
    public dev.agentd.v1.CallToolResponse callTool(dev.agentd.v1.CallToolRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCallToolMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns a task's current state.
     * </pre>
     */
    public dev.agentd.v1.Task getTask(dev.agentd.v1.GetTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the tools the caller may use.
     * </pre>
     */
    public dev.agentd.v1.ListToolsResponse listTools(dev.agentd.v1.ListToolsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListToolsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Cancels a running task and returns its final state.
     * </pre>
     */
    public dev.agentd.v1.Task cancelTask(dev.agentd.v1.CancelTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCancelTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Adds a user message to a task that runs, waits or is queued: it is in
     * the task's log (a task_steered event) before this returns, and the task
     * takes it at its next safe point (after the tool calls being made, before
     * the next model call; a task waiting for a person keeps waiting and takes
     * it when it goes on). Steers keep their order. FAILED_PRECONDITION
     * (`TASK_ALREADY_TERMINAL`) for a task that has ended, naming its state.
     * </pre>
     */
    public dev.agentd.v1.SteerTaskResponse steerTask(dev.agentd.v1.SteerTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSteerTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Replays a task's events after `after_sequence`, then follows the task
     * live until it ends.
     * </pre>
     */
    public java.util.Iterator<dev.agentd.v1.TaskEvent> streamTaskEvents(
        dev.agentd.v1.StreamTaskEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getStreamTaskEventsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the caller's tasks, newest first, page by page.
     * </pre>
     */
    public dev.agentd.v1.ListTasksResponse listTasks(dev.agentd.v1.ListTasksRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListTasksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Decides on a tool call that waits for a human's approval (the task is
     * INPUT_REQUIRED and announced it with an `approval_requested` event):
     * approve it, reject it, or approve it with edited arguments. Needs one of
     * the server's approver roles; returns the task's state when the decision
     * was recorded. A waiting task holds no running place: the decision wakes
     * it, and it runs on whichever replica has room.
     * </pre>
     */
    public dev.agentd.v1.Task approveToolCall(dev.agentd.v1.ApproveToolCallRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getApproveToolCallMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Answers a question the task's agent asked (an `input_requested` event;
     * the task is INPUT_REQUIRED), or one a remote A2A agent asked through a
     * child task; the task wakes and runs on, on whichever replica has room.
     * The task's owner or an approver may answer; NOT_FOUND
     * (`APPROVAL_NOT_PENDING`) when no such question waits. An unanswered
     * question expires at its wait's deadline (the task's `wait_timeout`);
     * the model is then told nobody answered.
     * </pre>
     */
    public dev.agentd.v1.Task provideInput(dev.agentd.v1.ProvideInputRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getProvideInputMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Resumes a task that waits (INPUT_REQUIRED) after a tool call failed for a
     * reason a person can fix (a `tool_resumable` event): that call runs again,
     * and only that call; the task goes on from there, on whichever replica runs
     * it. The task's owner or an approver may resume it; FAILED_PRECONDITION
     * (`TASK_NOT_RESUMABLE`) when no call of it waits, for example once its
     * resume window closed and it ended FAILED (`TOOL_RESUMABLE`).
     * </pre>
     */
    public dev.agentd.v1.Task resumeTask(dev.agentd.v1.ResumeTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResumeTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A task's durable trace, page by page: its model calls (the messages as
     * sent, the reply, usage), tool calls with their whole results, critic
     * verdicts and decisions, redacted. Kept after the task's events are gone
     * (AGENTD_TRACE_RETENTION_SECONDS). NOT_FOUND (`TRACE_NOT_FOUND`) when
     * none is kept. The task's owner reads its own; auditors and admins any of
     * the tenant's.
     * </pre>
     */
    public dev.agentd.v1.GetTaskTraceResponse getTaskTrace(dev.agentd.v1.GetTaskTraceRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetTaskTraceMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Reruns a recorded task's input as another agent version, as a new task
     * (`Task.replay`), its tool calls answered from the recording: nothing
     * that writes runs (see replays.proto). NOT_FOUND (`TRACE_NOT_FOUND`)
     * when the recording's trace is not kept.
     * </pre>
     */
    public dev.agentd.v1.Task replayTask(dev.agentd.v1.ReplayTaskRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReplayTaskMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists what tasks of the caller's tenant wait for a person to do, across
     * tasks and task trees, oldest first, page by page: approvals of tool
     * calls and of going past a budget's soft limit (to a holder of one of
     * the approver roles they name), questions and resumes (to the task's
     * owner, and to the roles that may answer or resume another's task: the
     * approver roles). Only what the caller may answer is listed; each action
     * is answered with ApproveToolCall, ProvideInput or ResumeTask, on any
     * replica, and is no longer listed once answered.
     * </pre>
     */
    public dev.agentd.v1.ListPendingActionsResponse listPendingActions(dev.agentd.v1.ListPendingActionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListPendingActionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * What became of pending actions: opened, reminded, escalated, answered
     * (by whom) or timed out (and what the deadline did), oldest first. A
     * task's owner reads its own task's; approvers, auditors and admins any
     * of the tenant's.
     * </pre>
     */
    public dev.agentd.v1.ListActionHistoryResponse listActionHistory(dev.agentd.v1.ListActionHistoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListActionHistoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists audit records of the caller's tenant, oldest first, page by page.
     * Needs the auditor or admin role.
     * </pre>
     */
    public dev.agentd.v1.ListAuditRecordsResponse listAuditRecords(dev.agentd.v1.ListAuditRecordsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAuditRecordsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Grants a principal or a role of the caller's tenant a level on tools
     * (admin role). Takes effect on this replica at once, on the others
     * within AGENTD_GRANTS_REFRESH_SECONDS.
     * </pre>
     */
    public dev.agentd.v1.Grant createGrant(dev.agentd.v1.CreateGrantRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateGrantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Revokes a grant of the caller's tenant (admin role); returns it revoked.
     * </pre>
     */
    public dev.agentd.v1.Grant revokeGrant(dev.agentd.v1.RevokeGrantRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRevokeGrantMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the grants of the caller's tenant, oldest first (admin role).
     * </pre>
     */
    public dev.agentd.v1.ListGrantsResponse listGrants(dev.agentd.v1.ListGrantsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListGrantsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Agents of the caller's tenant, managed here (admin role to change them);
     * agents from files (AGENTD_AGENTS_DIR) are listed and read, not changed.
     * Creates version 1 of a new agent; ALREADY_EXISTS (`AGENT_EXISTS`) for an
     * id the tenant has.
     * </pre>
     */
    public dev.agentd.v1.Agent createAgent(dev.agentd.v1.CreateAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * An agent, its latest version or `id&#64;version`; NOT_FOUND
     * (`AGENT_NOT_FOUND`) otherwise, and for another tenant's agent.
     * </pre>
     */
    public dev.agentd.v1.Agent getAgent(dev.agentd.v1.GetAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The agents the caller's tenant may use.
     * </pre>
     */
    public dev.agentd.v1.ListAgentsResponse listAgents(dev.agentd.v1.ListAgentsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListAgentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Stores the next version of an agent of the tenant (admin role).
     * </pre>
     */
    public dev.agentd.v1.Agent updateAgent(dev.agentd.v1.UpdateAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpdateAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes an agent of the tenant (admin role): new tasks can no longer
     * name it; its versions stay readable with `id&#64;version`.
     * </pre>
     */
    public dev.agentd.v1.DeleteAgentResponse deleteAgent(dev.agentd.v1.DeleteAgentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteAgentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Makes a version the one the bare id serves (admin role). With
     * AGENTD_PROMOTION_GATE on, UpdateAgent adds versions without changing
     * what the bare id serves, and a version is promoted only once an
     * evaluation run of it passed its gate: FAILED_PRECONDITION
     * (`PROMOTION_REFUSED`) otherwise.
     * </pre>
     */
    public dev.agentd.v1.Agent promoteAgentVersion(dev.agentd.v1.PromoteAgentVersionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPromoteAgentVersionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Conversations of the caller's tenant: threads of tasks, each task seeing
     * the earlier turns (`ExecuteRequest.conversation_id`). Another tenant's
     * conversation is NOT_FOUND (`CONVERSATION_NOT_FOUND`), as an unknown id is.
     * Creates an empty conversation of the caller.
     * </pre>
     */
    public dev.agentd.v1.Conversation createConversation(dev.agentd.v1.CreateConversationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateConversationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A conversation and a page of its messages, oldest first.
     * </pre>
     */
    public dev.agentd.v1.GetConversationResponse getConversation(dev.agentd.v1.GetConversationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetConversationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller's conversations, newest first, page by page.
     * </pre>
     */
    public dev.agentd.v1.ListConversationsResponse listConversations(dev.agentd.v1.ListConversationsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListConversationsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a conversation and its messages; FAILED_PRECONDITION
     * (`CONVERSATION_BUSY`) while a task of it runs or waits.
     * </pre>
     */
    public dev.agentd.v1.DeleteConversationResponse deleteConversation(dev.agentd.v1.DeleteConversationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteConversationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Makes a new conversation of the caller that shares the history of one
     * up to a turn, without copying it (in time that does not grow with the
     * conversation's length), with the running summary as it stood there.
     * FAILED_PRECONDITION (`CONVERSATION_BUSY`) while a task of it runs or
     * waits.
     * </pre>
     */
    public dev.agentd.v1.Conversation forkConversation(dev.agentd.v1.ForkConversationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getForkConversationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Takes the turns after a point out of what the conversation's next tasks
     * are sent; they stay in its history (GetConversation marks them
     * `rewound`) and in the audit. The running summary goes back to what it
     * was at the point. FAILED_PRECONDITION (`CONVERSATION_BUSY`) while a task
     * of it runs or waits.
     * </pre>
     */
    public dev.agentd.v1.Conversation rewindConversation(dev.agentd.v1.RewindConversationRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRewindConversationMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns one version of an artifact of a task's tree (the latest unless
     * `version` is set), with its content. NOT_FOUND: `TASK_NOT_FOUND` for a
     * task the caller's tenant does not have, `ARTIFACT_NOT_FOUND` for a name
     * or version the tree does not have.
     * </pre>
     */
    public dev.agentd.v1.ArtifactContent getArtifact(dev.agentd.v1.GetArtifactRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetArtifactMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams one version of an artifact in chunks with offsets, for content of
     * any size (up to AGENTD_ARTIFACT_MAX_BYTES); the same errors as
     * GetArtifact, and OUT_OF_RANGE never (an offset past the end gets an
     * empty last chunk).
     * </pre>
     */
    public java.util.Iterator<dev.agentd.v1.ArtifactChunk> readArtifact(
        dev.agentd.v1.ReadArtifactRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getReadArtifactMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Budgets of the caller's tenant (admin role to change them; admin or
     * auditor to list them): limits in tokens or money per tenant, end user
     * and agent, over a UTC day, a month or all time, held across replicas.
     * Creates a budget; ALREADY_EXISTS (`BUDGET_EXISTS`) for one of the same
     * scope, subject, unit and window.
     * </pre>
     */
    public dev.agentd.v1.Budget createBudget(dev.agentd.v1.CreateBudgetRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateBudgetMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Changes a budget's limits; NOT_FOUND (`BUDGET_NOT_FOUND`).
     * </pre>
     */
    public dev.agentd.v1.Budget updateBudget(dev.agentd.v1.UpdateBudgetRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpdateBudgetMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes a budget; its tasks draw on it no longer.
     * </pre>
     */
    public dev.agentd.v1.DeleteBudgetResponse deleteBudget(dev.agentd.v1.DeleteBudgetRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteBudgetMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists the tenant's budgets with what their current windows spent.
     * </pre>
     */
    public dev.agentd.v1.ListBudgetsResponse listBudgets(dev.agentd.v1.ListBudgetsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListBudgetsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Spend and tokens of the caller's tenant's model calls over a range,
     * grouped, from the usage ledger (admin or auditor role).
     * </pre>
     */
    public dev.agentd.v1.GetUsageResponse getUsage(dev.agentd.v1.GetUsageRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetUsageMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Statistics of the caller's tenant over a range: tasks by stop reason,
     * success rate, durations, iterations, tokens and cost, by agent, tool and
     * provider (admin or auditor role).
     * </pre>
     */
    public dev.agentd.v1.GetStatsResponse getStats(dev.agentd.v1.GetStatsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetStatsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Webhooks of the caller's tenant (admin role): endpoints sent its task
     * and inbox events, signed, at least once, in order per task.
     * Creates one; answers with its secret (shown only here and on rotation).
     * FAILED_PRECONDITION (`KEY_REQUIRED`) when the server holds no key
     * (AGENTD_KEYS) to keep the secret encrypted with.
     * </pre>
     */
    public dev.agentd.v1.Webhook createWebhook(dev.agentd.v1.CreateWebhookRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateWebhookMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`WEBHOOK_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public dev.agentd.v1.Webhook getWebhook(dev.agentd.v1.GetWebhookRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetWebhookMethod(), getCallOptions(), request);
    }

    /**
     */
    public dev.agentd.v1.ListWebhooksResponse listWebhooks(dev.agentd.v1.ListWebhooksRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListWebhooksMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Changes its url, filters, description or pause.
     * </pre>
     */
    public dev.agentd.v1.Webhook updateWebhook(dev.agentd.v1.UpdateWebhookRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getUpdateWebhookMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Deletes it with its queue and dead letters.
     * </pre>
     */
    public dev.agentd.v1.DeleteWebhookResponse deleteWebhook(dev.agentd.v1.DeleteWebhookRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteWebhookMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * A new signing secret, at once (answered with it).
     * </pre>
     */
    public dev.agentd.v1.Webhook rotateWebhookSecret(dev.agentd.v1.RotateWebhookSecretRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRotateWebhookSecretMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The events given up on after their retention, oldest first.
     * </pre>
     */
    public dev.agentd.v1.ListWebhookDeadLettersResponse listWebhookDeadLetters(dev.agentd.v1.ListWebhookDeadLettersRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListWebhookDeadLettersMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Queues dead letters to be delivered again.
     * </pre>
     */
    public dev.agentd.v1.RedeliverWebhookEventsResponse redeliverWebhookEvents(dev.agentd.v1.RedeliverWebhookEventsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getRedeliverWebhookEventsMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * Runs LLM agents and the tools they use.
   * Every failed call carries a `google.rpc.Status` with a
   * `google.rpc.ErrorInfo` (domain "agentd", reason from `ErrorReason`) and,
   * for invalid input, a `google.rpc.BadRequest` listing each field violation.
   * </pre>
   */
  public static final class AgentServiceFutureStub extends io.grpc.stub.AbstractFutureStub<AgentServiceFutureStub> {
    private AgentServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AgentServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AgentServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Starts a task and returns it at once (PENDING), with no stream attached:
     * the same validation, idempotency and admission as Execute. Follow it
     * with StreamTaskEvents (from sequence 0 for the whole log) or poll
     * GetTask.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Task> startTask(
        dev.agentd.v1.ExecuteRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getStartTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Runs the planner only and returns the plan it would follow.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.PlanResponse> plan(
        dev.agentd.v1.PlanRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPlanMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Calls one tool directly, with the caller's permissions.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.CallToolResponse> callTool(
        dev.agentd.v1.CallToolRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCallToolMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns a task's current state.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Task> getTask(
        dev.agentd.v1.GetTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the tools the caller may use.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListToolsResponse> listTools(
        dev.agentd.v1.ListToolsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListToolsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Cancels a running task and returns its final state.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Task> cancelTask(
        dev.agentd.v1.CancelTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCancelTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Adds a user message to a task that runs, waits or is queued: it is in
     * the task's log (a task_steered event) before this returns, and the task
     * takes it at its next safe point (after the tool calls being made, before
     * the next model call; a task waiting for a person keeps waiting and takes
     * it when it goes on). Steers keep their order. FAILED_PRECONDITION
     * (`TASK_ALREADY_TERMINAL`) for a task that has ended, naming its state.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.SteerTaskResponse> steerTask(
        dev.agentd.v1.SteerTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSteerTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the caller's tasks, newest first, page by page.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListTasksResponse> listTasks(
        dev.agentd.v1.ListTasksRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListTasksMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Decides on a tool call that waits for a human's approval (the task is
     * INPUT_REQUIRED and announced it with an `approval_requested` event):
     * approve it, reject it, or approve it with edited arguments. Needs one of
     * the server's approver roles; returns the task's state when the decision
     * was recorded. A waiting task holds no running place: the decision wakes
     * it, and it runs on whichever replica has room.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Task> approveToolCall(
        dev.agentd.v1.ApproveToolCallRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getApproveToolCallMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Answers a question the task's agent asked (an `input_requested` event;
     * the task is INPUT_REQUIRED), or one a remote A2A agent asked through a
     * child task; the task wakes and runs on, on whichever replica has room.
     * The task's owner or an approver may answer; NOT_FOUND
     * (`APPROVAL_NOT_PENDING`) when no such question waits. An unanswered
     * question expires at its wait's deadline (the task's `wait_timeout`);
     * the model is then told nobody answered.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Task> provideInput(
        dev.agentd.v1.ProvideInputRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getProvideInputMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Resumes a task that waits (INPUT_REQUIRED) after a tool call failed for a
     * reason a person can fix (a `tool_resumable` event): that call runs again,
     * and only that call; the task goes on from there, on whichever replica runs
     * it. The task's owner or an approver may resume it; FAILED_PRECONDITION
     * (`TASK_NOT_RESUMABLE`) when no call of it waits, for example once its
     * resume window closed and it ended FAILED (`TOOL_RESUMABLE`).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Task> resumeTask(
        dev.agentd.v1.ResumeTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResumeTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * A task's durable trace, page by page: its model calls (the messages as
     * sent, the reply, usage), tool calls with their whole results, critic
     * verdicts and decisions, redacted. Kept after the task's events are gone
     * (AGENTD_TRACE_RETENTION_SECONDS). NOT_FOUND (`TRACE_NOT_FOUND`) when
     * none is kept. The task's owner reads its own; auditors and admins any of
     * the tenant's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.GetTaskTraceResponse> getTaskTrace(
        dev.agentd.v1.GetTaskTraceRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetTaskTraceMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Reruns a recorded task's input as another agent version, as a new task
     * (`Task.replay`), its tool calls answered from the recording: nothing
     * that writes runs (see replays.proto). NOT_FOUND (`TRACE_NOT_FOUND`)
     * when the recording's trace is not kept.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Task> replayTask(
        dev.agentd.v1.ReplayTaskRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReplayTaskMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists what tasks of the caller's tenant wait for a person to do, across
     * tasks and task trees, oldest first, page by page: approvals of tool
     * calls and of going past a budget's soft limit (to a holder of one of
     * the approver roles they name), questions and resumes (to the task's
     * owner, and to the roles that may answer or resume another's task: the
     * approver roles). Only what the caller may answer is listed; each action
     * is answered with ApproveToolCall, ProvideInput or ResumeTask, on any
     * replica, and is no longer listed once answered.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListPendingActionsResponse> listPendingActions(
        dev.agentd.v1.ListPendingActionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListPendingActionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * What became of pending actions: opened, reminded, escalated, answered
     * (by whom) or timed out (and what the deadline did), oldest first. A
     * task's owner reads its own task's; approvers, auditors and admins any
     * of the tenant's.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListActionHistoryResponse> listActionHistory(
        dev.agentd.v1.ListActionHistoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListActionHistoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists audit records of the caller's tenant, oldest first, page by page.
     * Needs the auditor or admin role.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListAuditRecordsResponse> listAuditRecords(
        dev.agentd.v1.ListAuditRecordsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAuditRecordsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Grants a principal or a role of the caller's tenant a level on tools
     * (admin role). Takes effect on this replica at once, on the others
     * within AGENTD_GRANTS_REFRESH_SECONDS.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Grant> createGrant(
        dev.agentd.v1.CreateGrantRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateGrantMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Revokes a grant of the caller's tenant (admin role); returns it revoked.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Grant> revokeGrant(
        dev.agentd.v1.RevokeGrantRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRevokeGrantMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the grants of the caller's tenant, oldest first (admin role).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListGrantsResponse> listGrants(
        dev.agentd.v1.ListGrantsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListGrantsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Agents of the caller's tenant, managed here (admin role to change them);
     * agents from files (AGENTD_AGENTS_DIR) are listed and read, not changed.
     * Creates version 1 of a new agent; ALREADY_EXISTS (`AGENT_EXISTS`) for an
     * id the tenant has.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Agent> createAgent(
        dev.agentd.v1.CreateAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * An agent, its latest version or `id&#64;version`; NOT_FOUND
     * (`AGENT_NOT_FOUND`) otherwise, and for another tenant's agent.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Agent> getAgent(
        dev.agentd.v1.GetAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The agents the caller's tenant may use.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListAgentsResponse> listAgents(
        dev.agentd.v1.ListAgentsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListAgentsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Stores the next version of an agent of the tenant (admin role).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Agent> updateAgent(
        dev.agentd.v1.UpdateAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpdateAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes an agent of the tenant (admin role): new tasks can no longer
     * name it; its versions stay readable with `id&#64;version`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteAgentResponse> deleteAgent(
        dev.agentd.v1.DeleteAgentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteAgentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Makes a version the one the bare id serves (admin role). With
     * AGENTD_PROMOTION_GATE on, UpdateAgent adds versions without changing
     * what the bare id serves, and a version is promoted only once an
     * evaluation run of it passed its gate: FAILED_PRECONDITION
     * (`PROMOTION_REFUSED`) otherwise.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Agent> promoteAgentVersion(
        dev.agentd.v1.PromoteAgentVersionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPromoteAgentVersionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Conversations of the caller's tenant: threads of tasks, each task seeing
     * the earlier turns (`ExecuteRequest.conversation_id`). Another tenant's
     * conversation is NOT_FOUND (`CONVERSATION_NOT_FOUND`), as an unknown id is.
     * Creates an empty conversation of the caller.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Conversation> createConversation(
        dev.agentd.v1.CreateConversationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateConversationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * A conversation and a page of its messages, oldest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.GetConversationResponse> getConversation(
        dev.agentd.v1.GetConversationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetConversationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The caller's conversations, newest first, page by page.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListConversationsResponse> listConversations(
        dev.agentd.v1.ListConversationsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListConversationsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes a conversation and its messages; FAILED_PRECONDITION
     * (`CONVERSATION_BUSY`) while a task of it runs or waits.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteConversationResponse> deleteConversation(
        dev.agentd.v1.DeleteConversationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteConversationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Makes a new conversation of the caller that shares the history of one
     * up to a turn, without copying it (in time that does not grow with the
     * conversation's length), with the running summary as it stood there.
     * FAILED_PRECONDITION (`CONVERSATION_BUSY`) while a task of it runs or
     * waits.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Conversation> forkConversation(
        dev.agentd.v1.ForkConversationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getForkConversationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Takes the turns after a point out of what the conversation's next tasks
     * are sent; they stay in its history (GetConversation marks them
     * `rewound`) and in the audit. The running summary goes back to what it
     * was at the point. FAILED_PRECONDITION (`CONVERSATION_BUSY`) while a task
     * of it runs or waits.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Conversation> rewindConversation(
        dev.agentd.v1.RewindConversationRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRewindConversationMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns one version of an artifact of a task's tree (the latest unless
     * `version` is set), with its content. NOT_FOUND: `TASK_NOT_FOUND` for a
     * task the caller's tenant does not have, `ARTIFACT_NOT_FOUND` for a name
     * or version the tree does not have.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ArtifactContent> getArtifact(
        dev.agentd.v1.GetArtifactRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetArtifactMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Budgets of the caller's tenant (admin role to change them; admin or
     * auditor to list them): limits in tokens or money per tenant, end user
     * and agent, over a UTC day, a month or all time, held across replicas.
     * Creates a budget; ALREADY_EXISTS (`BUDGET_EXISTS`) for one of the same
     * scope, subject, unit and window.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Budget> createBudget(
        dev.agentd.v1.CreateBudgetRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateBudgetMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Changes a budget's limits; NOT_FOUND (`BUDGET_NOT_FOUND`).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Budget> updateBudget(
        dev.agentd.v1.UpdateBudgetRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpdateBudgetMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes a budget; its tasks draw on it no longer.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteBudgetResponse> deleteBudget(
        dev.agentd.v1.DeleteBudgetRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteBudgetMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists the tenant's budgets with what their current windows spent.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListBudgetsResponse> listBudgets(
        dev.agentd.v1.ListBudgetsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListBudgetsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Spend and tokens of the caller's tenant's model calls over a range,
     * grouped, from the usage ledger (admin or auditor role).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.GetUsageResponse> getUsage(
        dev.agentd.v1.GetUsageRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetUsageMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Statistics of the caller's tenant over a range: tasks by stop reason,
     * success rate, durations, iterations, tokens and cost, by agent, tool and
     * provider (admin or auditor role).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.GetStatsResponse> getStats(
        dev.agentd.v1.GetStatsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetStatsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Webhooks of the caller's tenant (admin role): endpoints sent its task
     * and inbox events, signed, at least once, in order per task.
     * Creates one; answers with its secret (shown only here and on rotation).
     * FAILED_PRECONDITION (`KEY_REQUIRED`) when the server holds no key
     * (AGENTD_KEYS) to keep the secret encrypted with.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Webhook> createWebhook(
        dev.agentd.v1.CreateWebhookRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateWebhookMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * NOT_FOUND (`WEBHOOK_NOT_FOUND`) for an id the tenant does not have.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Webhook> getWebhook(
        dev.agentd.v1.GetWebhookRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetWebhookMethod(), getCallOptions()), request);
    }

    /**
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListWebhooksResponse> listWebhooks(
        dev.agentd.v1.ListWebhooksRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListWebhooksMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Changes its url, filters, description or pause.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Webhook> updateWebhook(
        dev.agentd.v1.UpdateWebhookRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getUpdateWebhookMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Deletes it with its queue and dead letters.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteWebhookResponse> deleteWebhook(
        dev.agentd.v1.DeleteWebhookRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteWebhookMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * A new signing secret, at once (answered with it).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.Webhook> rotateWebhookSecret(
        dev.agentd.v1.RotateWebhookSecretRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRotateWebhookSecretMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The events given up on after their retention, oldest first.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListWebhookDeadLettersResponse> listWebhookDeadLetters(
        dev.agentd.v1.ListWebhookDeadLettersRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListWebhookDeadLettersMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Queues dead letters to be delivered again.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.RedeliverWebhookEventsResponse> redeliverWebhookEvents(
        dev.agentd.v1.RedeliverWebhookEventsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getRedeliverWebhookEventsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_EXECUTE = 0;
  private static final int METHODID_START_TASK = 1;
  private static final int METHODID_PLAN = 2;
  private static final int METHODID_CALL_TOOL = 3;
  private static final int METHODID_GET_TASK = 4;
  private static final int METHODID_LIST_TOOLS = 5;
  private static final int METHODID_CANCEL_TASK = 6;
  private static final int METHODID_STEER_TASK = 7;
  private static final int METHODID_STREAM_TASK_EVENTS = 8;
  private static final int METHODID_LIST_TASKS = 9;
  private static final int METHODID_APPROVE_TOOL_CALL = 10;
  private static final int METHODID_PROVIDE_INPUT = 11;
  private static final int METHODID_RESUME_TASK = 12;
  private static final int METHODID_GET_TASK_TRACE = 13;
  private static final int METHODID_REPLAY_TASK = 14;
  private static final int METHODID_LIST_PENDING_ACTIONS = 15;
  private static final int METHODID_LIST_ACTION_HISTORY = 16;
  private static final int METHODID_LIST_AUDIT_RECORDS = 17;
  private static final int METHODID_CREATE_GRANT = 18;
  private static final int METHODID_REVOKE_GRANT = 19;
  private static final int METHODID_LIST_GRANTS = 20;
  private static final int METHODID_CREATE_AGENT = 21;
  private static final int METHODID_GET_AGENT = 22;
  private static final int METHODID_LIST_AGENTS = 23;
  private static final int METHODID_UPDATE_AGENT = 24;
  private static final int METHODID_DELETE_AGENT = 25;
  private static final int METHODID_PROMOTE_AGENT_VERSION = 26;
  private static final int METHODID_CREATE_CONVERSATION = 27;
  private static final int METHODID_GET_CONVERSATION = 28;
  private static final int METHODID_LIST_CONVERSATIONS = 29;
  private static final int METHODID_DELETE_CONVERSATION = 30;
  private static final int METHODID_FORK_CONVERSATION = 31;
  private static final int METHODID_REWIND_CONVERSATION = 32;
  private static final int METHODID_GET_ARTIFACT = 33;
  private static final int METHODID_READ_ARTIFACT = 34;
  private static final int METHODID_CREATE_BUDGET = 35;
  private static final int METHODID_UPDATE_BUDGET = 36;
  private static final int METHODID_DELETE_BUDGET = 37;
  private static final int METHODID_LIST_BUDGETS = 38;
  private static final int METHODID_GET_USAGE = 39;
  private static final int METHODID_GET_STATS = 40;
  private static final int METHODID_CREATE_WEBHOOK = 41;
  private static final int METHODID_GET_WEBHOOK = 42;
  private static final int METHODID_LIST_WEBHOOKS = 43;
  private static final int METHODID_UPDATE_WEBHOOK = 44;
  private static final int METHODID_DELETE_WEBHOOK = 45;
  private static final int METHODID_ROTATE_WEBHOOK_SECRET = 46;
  private static final int METHODID_LIST_WEBHOOK_DEAD_LETTERS = 47;
  private static final int METHODID_REDELIVER_WEBHOOK_EVENTS = 48;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AgentServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(AgentServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_EXECUTE:
          serviceImpl.execute((dev.agentd.v1.ExecuteRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.TaskEvent>) responseObserver);
          break;
        case METHODID_START_TASK:
          serviceImpl.startTask((dev.agentd.v1.ExecuteRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Task>) responseObserver);
          break;
        case METHODID_PLAN:
          serviceImpl.plan((dev.agentd.v1.PlanRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.PlanResponse>) responseObserver);
          break;
        case METHODID_CALL_TOOL:
          serviceImpl.callTool((dev.agentd.v1.CallToolRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.CallToolResponse>) responseObserver);
          break;
        case METHODID_GET_TASK:
          serviceImpl.getTask((dev.agentd.v1.GetTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Task>) responseObserver);
          break;
        case METHODID_LIST_TOOLS:
          serviceImpl.listTools((dev.agentd.v1.ListToolsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListToolsResponse>) responseObserver);
          break;
        case METHODID_CANCEL_TASK:
          serviceImpl.cancelTask((dev.agentd.v1.CancelTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Task>) responseObserver);
          break;
        case METHODID_STEER_TASK:
          serviceImpl.steerTask((dev.agentd.v1.SteerTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.SteerTaskResponse>) responseObserver);
          break;
        case METHODID_STREAM_TASK_EVENTS:
          serviceImpl.streamTaskEvents((dev.agentd.v1.StreamTaskEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.TaskEvent>) responseObserver);
          break;
        case METHODID_LIST_TASKS:
          serviceImpl.listTasks((dev.agentd.v1.ListTasksRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListTasksResponse>) responseObserver);
          break;
        case METHODID_APPROVE_TOOL_CALL:
          serviceImpl.approveToolCall((dev.agentd.v1.ApproveToolCallRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Task>) responseObserver);
          break;
        case METHODID_PROVIDE_INPUT:
          serviceImpl.provideInput((dev.agentd.v1.ProvideInputRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Task>) responseObserver);
          break;
        case METHODID_RESUME_TASK:
          serviceImpl.resumeTask((dev.agentd.v1.ResumeTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Task>) responseObserver);
          break;
        case METHODID_GET_TASK_TRACE:
          serviceImpl.getTaskTrace((dev.agentd.v1.GetTaskTraceRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.GetTaskTraceResponse>) responseObserver);
          break;
        case METHODID_REPLAY_TASK:
          serviceImpl.replayTask((dev.agentd.v1.ReplayTaskRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Task>) responseObserver);
          break;
        case METHODID_LIST_PENDING_ACTIONS:
          serviceImpl.listPendingActions((dev.agentd.v1.ListPendingActionsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListPendingActionsResponse>) responseObserver);
          break;
        case METHODID_LIST_ACTION_HISTORY:
          serviceImpl.listActionHistory((dev.agentd.v1.ListActionHistoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListActionHistoryResponse>) responseObserver);
          break;
        case METHODID_LIST_AUDIT_RECORDS:
          serviceImpl.listAuditRecords((dev.agentd.v1.ListAuditRecordsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListAuditRecordsResponse>) responseObserver);
          break;
        case METHODID_CREATE_GRANT:
          serviceImpl.createGrant((dev.agentd.v1.CreateGrantRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Grant>) responseObserver);
          break;
        case METHODID_REVOKE_GRANT:
          serviceImpl.revokeGrant((dev.agentd.v1.RevokeGrantRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Grant>) responseObserver);
          break;
        case METHODID_LIST_GRANTS:
          serviceImpl.listGrants((dev.agentd.v1.ListGrantsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListGrantsResponse>) responseObserver);
          break;
        case METHODID_CREATE_AGENT:
          serviceImpl.createAgent((dev.agentd.v1.CreateAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Agent>) responseObserver);
          break;
        case METHODID_GET_AGENT:
          serviceImpl.getAgent((dev.agentd.v1.GetAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Agent>) responseObserver);
          break;
        case METHODID_LIST_AGENTS:
          serviceImpl.listAgents((dev.agentd.v1.ListAgentsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListAgentsResponse>) responseObserver);
          break;
        case METHODID_UPDATE_AGENT:
          serviceImpl.updateAgent((dev.agentd.v1.UpdateAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Agent>) responseObserver);
          break;
        case METHODID_DELETE_AGENT:
          serviceImpl.deleteAgent((dev.agentd.v1.DeleteAgentRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteAgentResponse>) responseObserver);
          break;
        case METHODID_PROMOTE_AGENT_VERSION:
          serviceImpl.promoteAgentVersion((dev.agentd.v1.PromoteAgentVersionRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Agent>) responseObserver);
          break;
        case METHODID_CREATE_CONVERSATION:
          serviceImpl.createConversation((dev.agentd.v1.CreateConversationRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Conversation>) responseObserver);
          break;
        case METHODID_GET_CONVERSATION:
          serviceImpl.getConversation((dev.agentd.v1.GetConversationRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.GetConversationResponse>) responseObserver);
          break;
        case METHODID_LIST_CONVERSATIONS:
          serviceImpl.listConversations((dev.agentd.v1.ListConversationsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListConversationsResponse>) responseObserver);
          break;
        case METHODID_DELETE_CONVERSATION:
          serviceImpl.deleteConversation((dev.agentd.v1.DeleteConversationRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteConversationResponse>) responseObserver);
          break;
        case METHODID_FORK_CONVERSATION:
          serviceImpl.forkConversation((dev.agentd.v1.ForkConversationRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Conversation>) responseObserver);
          break;
        case METHODID_REWIND_CONVERSATION:
          serviceImpl.rewindConversation((dev.agentd.v1.RewindConversationRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Conversation>) responseObserver);
          break;
        case METHODID_GET_ARTIFACT:
          serviceImpl.getArtifact((dev.agentd.v1.GetArtifactRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ArtifactContent>) responseObserver);
          break;
        case METHODID_READ_ARTIFACT:
          serviceImpl.readArtifact((dev.agentd.v1.ReadArtifactRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ArtifactChunk>) responseObserver);
          break;
        case METHODID_CREATE_BUDGET:
          serviceImpl.createBudget((dev.agentd.v1.CreateBudgetRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Budget>) responseObserver);
          break;
        case METHODID_UPDATE_BUDGET:
          serviceImpl.updateBudget((dev.agentd.v1.UpdateBudgetRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Budget>) responseObserver);
          break;
        case METHODID_DELETE_BUDGET:
          serviceImpl.deleteBudget((dev.agentd.v1.DeleteBudgetRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteBudgetResponse>) responseObserver);
          break;
        case METHODID_LIST_BUDGETS:
          serviceImpl.listBudgets((dev.agentd.v1.ListBudgetsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListBudgetsResponse>) responseObserver);
          break;
        case METHODID_GET_USAGE:
          serviceImpl.getUsage((dev.agentd.v1.GetUsageRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.GetUsageResponse>) responseObserver);
          break;
        case METHODID_GET_STATS:
          serviceImpl.getStats((dev.agentd.v1.GetStatsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.GetStatsResponse>) responseObserver);
          break;
        case METHODID_CREATE_WEBHOOK:
          serviceImpl.createWebhook((dev.agentd.v1.CreateWebhookRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook>) responseObserver);
          break;
        case METHODID_GET_WEBHOOK:
          serviceImpl.getWebhook((dev.agentd.v1.GetWebhookRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook>) responseObserver);
          break;
        case METHODID_LIST_WEBHOOKS:
          serviceImpl.listWebhooks((dev.agentd.v1.ListWebhooksRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListWebhooksResponse>) responseObserver);
          break;
        case METHODID_UPDATE_WEBHOOK:
          serviceImpl.updateWebhook((dev.agentd.v1.UpdateWebhookRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook>) responseObserver);
          break;
        case METHODID_DELETE_WEBHOOK:
          serviceImpl.deleteWebhook((dev.agentd.v1.DeleteWebhookRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteWebhookResponse>) responseObserver);
          break;
        case METHODID_ROTATE_WEBHOOK_SECRET:
          serviceImpl.rotateWebhookSecret((dev.agentd.v1.RotateWebhookSecretRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.Webhook>) responseObserver);
          break;
        case METHODID_LIST_WEBHOOK_DEAD_LETTERS:
          serviceImpl.listWebhookDeadLetters((dev.agentd.v1.ListWebhookDeadLettersRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListWebhookDeadLettersResponse>) responseObserver);
          break;
        case METHODID_REDELIVER_WEBHOOK_EVENTS:
          serviceImpl.redeliverWebhookEvents((dev.agentd.v1.RedeliverWebhookEventsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.RedeliverWebhookEventsResponse>) responseObserver);
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

  private static abstract class AgentServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AgentServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.agentd.v1.AgentServiceProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AgentService");
    }
  }

  private static final class AgentServiceFileDescriptorSupplier
      extends AgentServiceBaseDescriptorSupplier {
    AgentServiceFileDescriptorSupplier() {}
  }

  private static final class AgentServiceMethodDescriptorSupplier
      extends AgentServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    AgentServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (AgentServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AgentServiceFileDescriptorSupplier())
              .addMethod(getExecuteMethod())
              .addMethod(getStartTaskMethod())
              .addMethod(getPlanMethod())
              .addMethod(getCallToolMethod())
              .addMethod(getGetTaskMethod())
              .addMethod(getListToolsMethod())
              .addMethod(getCancelTaskMethod())
              .addMethod(getSteerTaskMethod())
              .addMethod(getStreamTaskEventsMethod())
              .addMethod(getListTasksMethod())
              .addMethod(getApproveToolCallMethod())
              .addMethod(getProvideInputMethod())
              .addMethod(getResumeTaskMethod())
              .addMethod(getGetTaskTraceMethod())
              .addMethod(getReplayTaskMethod())
              .addMethod(getListPendingActionsMethod())
              .addMethod(getListActionHistoryMethod())
              .addMethod(getListAuditRecordsMethod())
              .addMethod(getCreateGrantMethod())
              .addMethod(getRevokeGrantMethod())
              .addMethod(getListGrantsMethod())
              .addMethod(getCreateAgentMethod())
              .addMethod(getGetAgentMethod())
              .addMethod(getListAgentsMethod())
              .addMethod(getUpdateAgentMethod())
              .addMethod(getDeleteAgentMethod())
              .addMethod(getPromoteAgentVersionMethod())
              .addMethod(getCreateConversationMethod())
              .addMethod(getGetConversationMethod())
              .addMethod(getListConversationsMethod())
              .addMethod(getDeleteConversationMethod())
              .addMethod(getForkConversationMethod())
              .addMethod(getRewindConversationMethod())
              .addMethod(getGetArtifactMethod())
              .addMethod(getReadArtifactMethod())
              .addMethod(getCreateBudgetMethod())
              .addMethod(getUpdateBudgetMethod())
              .addMethod(getDeleteBudgetMethod())
              .addMethod(getListBudgetsMethod())
              .addMethod(getGetUsageMethod())
              .addMethod(getGetStatsMethod())
              .addMethod(getCreateWebhookMethod())
              .addMethod(getGetWebhookMethod())
              .addMethod(getListWebhooksMethod())
              .addMethod(getUpdateWebhookMethod())
              .addMethod(getDeleteWebhookMethod())
              .addMethod(getRotateWebhookSecretMethod())
              .addMethod(getListWebhookDeadLettersMethod())
              .addMethod(getRedeliverWebhookEventsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
