package dev.agentd.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Long-term memory: what agents remember about an end user across
 * conversations. Every call concerns the calling principal's own memories
 * in its tenant: the end user a gateway names with `agentd-on-behalf-of`,
 * or the caller itself. No call reaches another user's or another tenant's
 * memories, except those of shared namespaces (`shared:&lt;name&gt;`): they belong
 * to the tenant, reading one needs a role of AGENTD_MEMORY_SHARED_READ_ROLES
 * (or of AGENTD_MEMORY_SHARED_WRITE_ROLES) and adding, changing or deleting
 * one a role of AGENTD_MEMORY_SHARED_WRITE_ROLES (PERMISSION_DENIED
 * otherwise). The RPCs answer FAILED_PRECONDITION (MEMORY_UNAVAILABLE) on a
 * server without an embedding model (AGENTD_EMBEDDING_MODEL) or whose
 * PostgreSQL lacks the `vector` extension.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: agentd/v1/memory.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class MemoryServiceGrpc {

  private MemoryServiceGrpc() {}

  public static final String SERVICE_NAME = "agentd.v1.MemoryService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListMemoriesRequest,
      dev.agentd.v1.ListMemoriesResponse> getListMemoriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListMemories",
      requestType = dev.agentd.v1.ListMemoriesRequest.class,
      responseType = dev.agentd.v1.ListMemoriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListMemoriesRequest,
      dev.agentd.v1.ListMemoriesResponse> getListMemoriesMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListMemoriesRequest, dev.agentd.v1.ListMemoriesResponse> getListMemoriesMethod;
    if ((getListMemoriesMethod = MemoryServiceGrpc.getListMemoriesMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getListMemoriesMethod = MemoryServiceGrpc.getListMemoriesMethod) == null) {
          MemoryServiceGrpc.getListMemoriesMethod = getListMemoriesMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListMemoriesRequest, dev.agentd.v1.ListMemoriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListMemories"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListMemoriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListMemoriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("ListMemories"))
              .build();
        }
      }
    }
    return getListMemoriesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.SearchMemoriesRequest,
      dev.agentd.v1.SearchMemoriesResponse> getSearchMemoriesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SearchMemories",
      requestType = dev.agentd.v1.SearchMemoriesRequest.class,
      responseType = dev.agentd.v1.SearchMemoriesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.SearchMemoriesRequest,
      dev.agentd.v1.SearchMemoriesResponse> getSearchMemoriesMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.SearchMemoriesRequest, dev.agentd.v1.SearchMemoriesResponse> getSearchMemoriesMethod;
    if ((getSearchMemoriesMethod = MemoryServiceGrpc.getSearchMemoriesMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getSearchMemoriesMethod = MemoryServiceGrpc.getSearchMemoriesMethod) == null) {
          MemoryServiceGrpc.getSearchMemoriesMethod = getSearchMemoriesMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.SearchMemoriesRequest, dev.agentd.v1.SearchMemoriesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SearchMemories"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.SearchMemoriesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.SearchMemoriesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("SearchMemories"))
              .build();
        }
      }
    }
    return getSearchMemoriesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteMemoryRequest,
      dev.agentd.v1.DeleteMemoryResponse> getDeleteMemoryMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteMemory",
      requestType = dev.agentd.v1.DeleteMemoryRequest.class,
      responseType = dev.agentd.v1.DeleteMemoryResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteMemoryRequest,
      dev.agentd.v1.DeleteMemoryResponse> getDeleteMemoryMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteMemoryRequest, dev.agentd.v1.DeleteMemoryResponse> getDeleteMemoryMethod;
    if ((getDeleteMemoryMethod = MemoryServiceGrpc.getDeleteMemoryMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getDeleteMemoryMethod = MemoryServiceGrpc.getDeleteMemoryMethod) == null) {
          MemoryServiceGrpc.getDeleteMemoryMethod = getDeleteMemoryMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteMemoryRequest, dev.agentd.v1.DeleteMemoryResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteMemory"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteMemoryRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteMemoryResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("DeleteMemory"))
              .build();
        }
      }
    }
    return getDeleteMemoryMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ForgetUserRequest,
      dev.agentd.v1.ForgetUserResponse> getForgetUserMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ForgetUser",
      requestType = dev.agentd.v1.ForgetUserRequest.class,
      responseType = dev.agentd.v1.ForgetUserResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ForgetUserRequest,
      dev.agentd.v1.ForgetUserResponse> getForgetUserMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ForgetUserRequest, dev.agentd.v1.ForgetUserResponse> getForgetUserMethod;
    if ((getForgetUserMethod = MemoryServiceGrpc.getForgetUserMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getForgetUserMethod = MemoryServiceGrpc.getForgetUserMethod) == null) {
          MemoryServiceGrpc.getForgetUserMethod = getForgetUserMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ForgetUserRequest, dev.agentd.v1.ForgetUserResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ForgetUser"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ForgetUserRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ForgetUserResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("ForgetUser"))
              .build();
        }
      }
    }
    return getForgetUserMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.CreateKnowledgeBaseRequest,
      dev.agentd.v1.KnowledgeBase> getCreateKnowledgeBaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateKnowledgeBase",
      requestType = dev.agentd.v1.CreateKnowledgeBaseRequest.class,
      responseType = dev.agentd.v1.KnowledgeBase.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.CreateKnowledgeBaseRequest,
      dev.agentd.v1.KnowledgeBase> getCreateKnowledgeBaseMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.CreateKnowledgeBaseRequest, dev.agentd.v1.KnowledgeBase> getCreateKnowledgeBaseMethod;
    if ((getCreateKnowledgeBaseMethod = MemoryServiceGrpc.getCreateKnowledgeBaseMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getCreateKnowledgeBaseMethod = MemoryServiceGrpc.getCreateKnowledgeBaseMethod) == null) {
          MemoryServiceGrpc.getCreateKnowledgeBaseMethod = getCreateKnowledgeBaseMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.CreateKnowledgeBaseRequest, dev.agentd.v1.KnowledgeBase>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateKnowledgeBase"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.CreateKnowledgeBaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.KnowledgeBase.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("CreateKnowledgeBase"))
              .build();
        }
      }
    }
    return getCreateKnowledgeBaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListKnowledgeBasesRequest,
      dev.agentd.v1.ListKnowledgeBasesResponse> getListKnowledgeBasesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListKnowledgeBases",
      requestType = dev.agentd.v1.ListKnowledgeBasesRequest.class,
      responseType = dev.agentd.v1.ListKnowledgeBasesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListKnowledgeBasesRequest,
      dev.agentd.v1.ListKnowledgeBasesResponse> getListKnowledgeBasesMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListKnowledgeBasesRequest, dev.agentd.v1.ListKnowledgeBasesResponse> getListKnowledgeBasesMethod;
    if ((getListKnowledgeBasesMethod = MemoryServiceGrpc.getListKnowledgeBasesMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getListKnowledgeBasesMethod = MemoryServiceGrpc.getListKnowledgeBasesMethod) == null) {
          MemoryServiceGrpc.getListKnowledgeBasesMethod = getListKnowledgeBasesMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListKnowledgeBasesRequest, dev.agentd.v1.ListKnowledgeBasesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListKnowledgeBases"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListKnowledgeBasesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListKnowledgeBasesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("ListKnowledgeBases"))
              .build();
        }
      }
    }
    return getListKnowledgeBasesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteKnowledgeBaseRequest,
      dev.agentd.v1.DeleteKnowledgeBaseResponse> getDeleteKnowledgeBaseMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteKnowledgeBase",
      requestType = dev.agentd.v1.DeleteKnowledgeBaseRequest.class,
      responseType = dev.agentd.v1.DeleteKnowledgeBaseResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteKnowledgeBaseRequest,
      dev.agentd.v1.DeleteKnowledgeBaseResponse> getDeleteKnowledgeBaseMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteKnowledgeBaseRequest, dev.agentd.v1.DeleteKnowledgeBaseResponse> getDeleteKnowledgeBaseMethod;
    if ((getDeleteKnowledgeBaseMethod = MemoryServiceGrpc.getDeleteKnowledgeBaseMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getDeleteKnowledgeBaseMethod = MemoryServiceGrpc.getDeleteKnowledgeBaseMethod) == null) {
          MemoryServiceGrpc.getDeleteKnowledgeBaseMethod = getDeleteKnowledgeBaseMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteKnowledgeBaseRequest, dev.agentd.v1.DeleteKnowledgeBaseResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteKnowledgeBase"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteKnowledgeBaseRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteKnowledgeBaseResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("DeleteKnowledgeBase"))
              .build();
        }
      }
    }
    return getDeleteKnowledgeBaseMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.AddDocumentRequest,
      dev.agentd.v1.KnowledgeDocument> getAddDocumentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AddDocument",
      requestType = dev.agentd.v1.AddDocumentRequest.class,
      responseType = dev.agentd.v1.KnowledgeDocument.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.AddDocumentRequest,
      dev.agentd.v1.KnowledgeDocument> getAddDocumentMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.AddDocumentRequest, dev.agentd.v1.KnowledgeDocument> getAddDocumentMethod;
    if ((getAddDocumentMethod = MemoryServiceGrpc.getAddDocumentMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getAddDocumentMethod = MemoryServiceGrpc.getAddDocumentMethod) == null) {
          MemoryServiceGrpc.getAddDocumentMethod = getAddDocumentMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.AddDocumentRequest, dev.agentd.v1.KnowledgeDocument>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AddDocument"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.AddDocumentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.KnowledgeDocument.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("AddDocument"))
              .build();
        }
      }
    }
    return getAddDocumentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListDocumentsRequest,
      dev.agentd.v1.ListDocumentsResponse> getListDocumentsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListDocuments",
      requestType = dev.agentd.v1.ListDocumentsRequest.class,
      responseType = dev.agentd.v1.ListDocumentsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListDocumentsRequest,
      dev.agentd.v1.ListDocumentsResponse> getListDocumentsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListDocumentsRequest, dev.agentd.v1.ListDocumentsResponse> getListDocumentsMethod;
    if ((getListDocumentsMethod = MemoryServiceGrpc.getListDocumentsMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getListDocumentsMethod = MemoryServiceGrpc.getListDocumentsMethod) == null) {
          MemoryServiceGrpc.getListDocumentsMethod = getListDocumentsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListDocumentsRequest, dev.agentd.v1.ListDocumentsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListDocuments"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListDocumentsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListDocumentsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("ListDocuments"))
              .build();
        }
      }
    }
    return getListDocumentsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.DeleteDocumentRequest,
      dev.agentd.v1.DeleteDocumentResponse> getDeleteDocumentMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "DeleteDocument",
      requestType = dev.agentd.v1.DeleteDocumentRequest.class,
      responseType = dev.agentd.v1.DeleteDocumentResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.DeleteDocumentRequest,
      dev.agentd.v1.DeleteDocumentResponse> getDeleteDocumentMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.DeleteDocumentRequest, dev.agentd.v1.DeleteDocumentResponse> getDeleteDocumentMethod;
    if ((getDeleteDocumentMethod = MemoryServiceGrpc.getDeleteDocumentMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getDeleteDocumentMethod = MemoryServiceGrpc.getDeleteDocumentMethod) == null) {
          MemoryServiceGrpc.getDeleteDocumentMethod = getDeleteDocumentMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.DeleteDocumentRequest, dev.agentd.v1.DeleteDocumentResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "DeleteDocument"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteDocumentRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.DeleteDocumentResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("DeleteDocument"))
              .build();
        }
      }
    }
    return getDeleteDocumentMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.SearchKnowledgeRequest,
      dev.agentd.v1.SearchKnowledgeResponse> getSearchKnowledgeMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "SearchKnowledge",
      requestType = dev.agentd.v1.SearchKnowledgeRequest.class,
      responseType = dev.agentd.v1.SearchKnowledgeResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.SearchKnowledgeRequest,
      dev.agentd.v1.SearchKnowledgeResponse> getSearchKnowledgeMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.SearchKnowledgeRequest, dev.agentd.v1.SearchKnowledgeResponse> getSearchKnowledgeMethod;
    if ((getSearchKnowledgeMethod = MemoryServiceGrpc.getSearchKnowledgeMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getSearchKnowledgeMethod = MemoryServiceGrpc.getSearchKnowledgeMethod) == null) {
          MemoryServiceGrpc.getSearchKnowledgeMethod = getSearchKnowledgeMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.SearchKnowledgeRequest, dev.agentd.v1.SearchKnowledgeResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "SearchKnowledge"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.SearchKnowledgeRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.SearchKnowledgeResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("SearchKnowledge"))
              .build();
        }
      }
    }
    return getSearchKnowledgeMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.GetIngestionJobRequest,
      dev.agentd.v1.IngestionJob> getGetIngestionJobMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetIngestionJob",
      requestType = dev.agentd.v1.GetIngestionJobRequest.class,
      responseType = dev.agentd.v1.IngestionJob.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.GetIngestionJobRequest,
      dev.agentd.v1.IngestionJob> getGetIngestionJobMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.GetIngestionJobRequest, dev.agentd.v1.IngestionJob> getGetIngestionJobMethod;
    if ((getGetIngestionJobMethod = MemoryServiceGrpc.getGetIngestionJobMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getGetIngestionJobMethod = MemoryServiceGrpc.getGetIngestionJobMethod) == null) {
          MemoryServiceGrpc.getGetIngestionJobMethod = getGetIngestionJobMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.GetIngestionJobRequest, dev.agentd.v1.IngestionJob>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetIngestionJob"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.GetIngestionJobRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.IngestionJob.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("GetIngestionJob"))
              .build();
        }
      }
    }
    return getGetIngestionJobMethod;
  }

  private static volatile io.grpc.MethodDescriptor<dev.agentd.v1.ListIngestionJobsRequest,
      dev.agentd.v1.ListIngestionJobsResponse> getListIngestionJobsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListIngestionJobs",
      requestType = dev.agentd.v1.ListIngestionJobsRequest.class,
      responseType = dev.agentd.v1.ListIngestionJobsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<dev.agentd.v1.ListIngestionJobsRequest,
      dev.agentd.v1.ListIngestionJobsResponse> getListIngestionJobsMethod() {
    io.grpc.MethodDescriptor<dev.agentd.v1.ListIngestionJobsRequest, dev.agentd.v1.ListIngestionJobsResponse> getListIngestionJobsMethod;
    if ((getListIngestionJobsMethod = MemoryServiceGrpc.getListIngestionJobsMethod) == null) {
      synchronized (MemoryServiceGrpc.class) {
        if ((getListIngestionJobsMethod = MemoryServiceGrpc.getListIngestionJobsMethod) == null) {
          MemoryServiceGrpc.getListIngestionJobsMethod = getListIngestionJobsMethod =
              io.grpc.MethodDescriptor.<dev.agentd.v1.ListIngestionJobsRequest, dev.agentd.v1.ListIngestionJobsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListIngestionJobs"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListIngestionJobsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  dev.agentd.v1.ListIngestionJobsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new MemoryServiceMethodDescriptorSupplier("ListIngestionJobs"))
              .build();
        }
      }
    }
    return getListIngestionJobsMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static MemoryServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MemoryServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MemoryServiceStub>() {
        @java.lang.Override
        public MemoryServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MemoryServiceStub(channel, callOptions);
        }
      };
    return MemoryServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static MemoryServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MemoryServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MemoryServiceBlockingStub>() {
        @java.lang.Override
        public MemoryServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MemoryServiceBlockingStub(channel, callOptions);
        }
      };
    return MemoryServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static MemoryServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<MemoryServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<MemoryServiceFutureStub>() {
        @java.lang.Override
        public MemoryServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new MemoryServiceFutureStub(channel, callOptions);
        }
      };
    return MemoryServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Long-term memory: what agents remember about an end user across
   * conversations. Every call concerns the calling principal's own memories
   * in its tenant: the end user a gateway names with `agentd-on-behalf-of`,
   * or the caller itself. No call reaches another user's or another tenant's
   * memories, except those of shared namespaces (`shared:&lt;name&gt;`): they belong
   * to the tenant, reading one needs a role of AGENTD_MEMORY_SHARED_READ_ROLES
   * (or of AGENTD_MEMORY_SHARED_WRITE_ROLES) and adding, changing or deleting
   * one a role of AGENTD_MEMORY_SHARED_WRITE_ROLES (PERMISSION_DENIED
   * otherwise). The RPCs answer FAILED_PRECONDITION (MEMORY_UNAVAILABLE) on a
   * server without an embedding model (AGENTD_EMBEDDING_MODEL) or whose
   * PostgreSQL lacks the `vector` extension.
   * </pre>
   */
  public static abstract class MemoryServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * The caller's memories, oldest first, a page at a time.
     * </pre>
     */
    public void listMemories(dev.agentd.v1.ListMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListMemoriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListMemoriesMethod(), responseObserver);
    }

    /**
     * <pre>
     * The caller's memories nearest in meaning to a query.
     * </pre>
     */
    public void searchMemories(dev.agentd.v1.SearchMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.SearchMemoriesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSearchMemoriesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Delete one memory of the caller, or of a shared namespace (a write
     * role); NOT_FOUND (MEMORY_NOT_FOUND) when the caller has none of that id.
     * </pre>
     */
    public void deleteMemory(dev.agentd.v1.DeleteMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteMemoryResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteMemoryMethod(), responseObserver);
    }

    /**
     * <pre>
     * Forget the caller: every memory of theirs in the tenant, in every
     * namespace, the memories they wrote into shared namespaces included, with
     * its vector and keyword index entries and anything a server process cached
     * of it. The RPC audit record of the call names the
     * user forgotten (its principal) and the gateway that asked (via).
     * </pre>
     */
    public void forgetUser(dev.agentd.v1.ForgetUserRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ForgetUserResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getForgetUserMethod(), responseObserver);
    }

    /**
     * <pre>
     * Create an empty knowledge base; ALREADY_EXISTS (KNOWLEDGE_BASE_EXISTS)
     * when the tenant has that id.
     * </pre>
     */
    public void createKnowledgeBase(dev.agentd.v1.CreateKnowledgeBaseRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.KnowledgeBase> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateKnowledgeBaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * The tenant's knowledge bases by id, a page at a time.
     * </pre>
     */
    public void listKnowledgeBases(dev.agentd.v1.ListKnowledgeBasesRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListKnowledgeBasesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListKnowledgeBasesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Delete a knowledge base with its documents, their chunks and vectors.
     * </pre>
     */
    public void deleteKnowledgeBase(dev.agentd.v1.DeleteKnowledgeBaseRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteKnowledgeBaseResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteKnowledgeBaseMethod(), responseObserver);
    }

    /**
     * <pre>
     * Parse, chunk, embed and store a document. Ingestion is all or nothing:
     * on any failure (embeddings endpoint down, wrong dimensions, unreadable
     * content) no chunk and no record of the document remains, and a document
     * replaced by external_id stays as it was. Without `background` it answers
     * when the document is READY (or with the error); with it, it answers at
     * once with the document INGESTING and its `ingestion_job_id`
     * (GetIngestionJob tells the progress and the outcome). A document is
     * searchable only once READY.
     * </pre>
     */
    public void addDocument(dev.agentd.v1.AddDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.KnowledgeDocument> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAddDocumentMethod(), responseObserver);
    }

    /**
     * <pre>
     * The documents of a knowledge base by id, a page at a time.
     * </pre>
     */
    public void listDocuments(dev.agentd.v1.ListDocumentsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListDocumentsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListDocumentsMethod(), responseObserver);
    }

    /**
     * <pre>
     * Delete a document with its chunks and vectors.
     * </pre>
     */
    public void deleteDocument(dev.agentd.v1.DeleteDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteDocumentResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getDeleteDocumentMethod(), responseObserver);
    }

    /**
     * <pre>
     * Hit testing: the passages of a knowledge base a search_knowledge call
     * with this query would retrieve (hybrid search, cut at the threshold).
     * </pre>
     */
    public void searchKnowledge(dev.agentd.v1.SearchKnowledgeRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.SearchKnowledgeResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getSearchKnowledgeMethod(), responseObserver);
    }

    /**
     * <pre>
     * An ingestion job of the tenant (AddDocument's `ingestion_job_id`): its
     * state, progress and, when it failed, why. Needs the role AddDocument
     * needs; NOT_FOUND (MEMORY_NOT_FOUND) for another tenant's job.
     * </pre>
     */
    public void getIngestionJob(dev.agentd.v1.GetIngestionJobRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.IngestionJob> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetIngestionJobMethod(), responseObserver);
    }

    /**
     * <pre>
     * The ingestion jobs of a knowledge base by id (oldest first), a page at a
     * time. Needs the role AddDocument needs.
     * </pre>
     */
    public void listIngestionJobs(dev.agentd.v1.ListIngestionJobsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListIngestionJobsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListIngestionJobsMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getListMemoriesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListMemoriesRequest,
                dev.agentd.v1.ListMemoriesResponse>(
                  this, METHODID_LIST_MEMORIES)))
          .addMethod(
            getSearchMemoriesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.SearchMemoriesRequest,
                dev.agentd.v1.SearchMemoriesResponse>(
                  this, METHODID_SEARCH_MEMORIES)))
          .addMethod(
            getDeleteMemoryMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteMemoryRequest,
                dev.agentd.v1.DeleteMemoryResponse>(
                  this, METHODID_DELETE_MEMORY)))
          .addMethod(
            getForgetUserMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ForgetUserRequest,
                dev.agentd.v1.ForgetUserResponse>(
                  this, METHODID_FORGET_USER)))
          .addMethod(
            getCreateKnowledgeBaseMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.CreateKnowledgeBaseRequest,
                dev.agentd.v1.KnowledgeBase>(
                  this, METHODID_CREATE_KNOWLEDGE_BASE)))
          .addMethod(
            getListKnowledgeBasesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListKnowledgeBasesRequest,
                dev.agentd.v1.ListKnowledgeBasesResponse>(
                  this, METHODID_LIST_KNOWLEDGE_BASES)))
          .addMethod(
            getDeleteKnowledgeBaseMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteKnowledgeBaseRequest,
                dev.agentd.v1.DeleteKnowledgeBaseResponse>(
                  this, METHODID_DELETE_KNOWLEDGE_BASE)))
          .addMethod(
            getAddDocumentMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.AddDocumentRequest,
                dev.agentd.v1.KnowledgeDocument>(
                  this, METHODID_ADD_DOCUMENT)))
          .addMethod(
            getListDocumentsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListDocumentsRequest,
                dev.agentd.v1.ListDocumentsResponse>(
                  this, METHODID_LIST_DOCUMENTS)))
          .addMethod(
            getDeleteDocumentMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.DeleteDocumentRequest,
                dev.agentd.v1.DeleteDocumentResponse>(
                  this, METHODID_DELETE_DOCUMENT)))
          .addMethod(
            getSearchKnowledgeMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.SearchKnowledgeRequest,
                dev.agentd.v1.SearchKnowledgeResponse>(
                  this, METHODID_SEARCH_KNOWLEDGE)))
          .addMethod(
            getGetIngestionJobMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.GetIngestionJobRequest,
                dev.agentd.v1.IngestionJob>(
                  this, METHODID_GET_INGESTION_JOB)))
          .addMethod(
            getListIngestionJobsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                dev.agentd.v1.ListIngestionJobsRequest,
                dev.agentd.v1.ListIngestionJobsResponse>(
                  this, METHODID_LIST_INGESTION_JOBS)))
          .build();
    }
  }

  /**
   * <pre>
   * Long-term memory: what agents remember about an end user across
   * conversations. Every call concerns the calling principal's own memories
   * in its tenant: the end user a gateway names with `agentd-on-behalf-of`,
   * or the caller itself. No call reaches another user's or another tenant's
   * memories, except those of shared namespaces (`shared:&lt;name&gt;`): they belong
   * to the tenant, reading one needs a role of AGENTD_MEMORY_SHARED_READ_ROLES
   * (or of AGENTD_MEMORY_SHARED_WRITE_ROLES) and adding, changing or deleting
   * one a role of AGENTD_MEMORY_SHARED_WRITE_ROLES (PERMISSION_DENIED
   * otherwise). The RPCs answer FAILED_PRECONDITION (MEMORY_UNAVAILABLE) on a
   * server without an embedding model (AGENTD_EMBEDDING_MODEL) or whose
   * PostgreSQL lacks the `vector` extension.
   * </pre>
   */
  public static final class MemoryServiceStub extends io.grpc.stub.AbstractAsyncStub<MemoryServiceStub> {
    private MemoryServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MemoryServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MemoryServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * The caller's memories, oldest first, a page at a time.
     * </pre>
     */
    public void listMemories(dev.agentd.v1.ListMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListMemoriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListMemoriesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The caller's memories nearest in meaning to a query.
     * </pre>
     */
    public void searchMemories(dev.agentd.v1.SearchMemoriesRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.SearchMemoriesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSearchMemoriesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Delete one memory of the caller, or of a shared namespace (a write
     * role); NOT_FOUND (MEMORY_NOT_FOUND) when the caller has none of that id.
     * </pre>
     */
    public void deleteMemory(dev.agentd.v1.DeleteMemoryRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteMemoryResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteMemoryMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Forget the caller: every memory of theirs in the tenant, in every
     * namespace, the memories they wrote into shared namespaces included, with
     * its vector and keyword index entries and anything a server process cached
     * of it. The RPC audit record of the call names the
     * user forgotten (its principal) and the gateway that asked (via).
     * </pre>
     */
    public void forgetUser(dev.agentd.v1.ForgetUserRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ForgetUserResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getForgetUserMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Create an empty knowledge base; ALREADY_EXISTS (KNOWLEDGE_BASE_EXISTS)
     * when the tenant has that id.
     * </pre>
     */
    public void createKnowledgeBase(dev.agentd.v1.CreateKnowledgeBaseRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.KnowledgeBase> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateKnowledgeBaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The tenant's knowledge bases by id, a page at a time.
     * </pre>
     */
    public void listKnowledgeBases(dev.agentd.v1.ListKnowledgeBasesRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListKnowledgeBasesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListKnowledgeBasesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Delete a knowledge base with its documents, their chunks and vectors.
     * </pre>
     */
    public void deleteKnowledgeBase(dev.agentd.v1.DeleteKnowledgeBaseRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteKnowledgeBaseResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteKnowledgeBaseMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Parse, chunk, embed and store a document. Ingestion is all or nothing:
     * on any failure (embeddings endpoint down, wrong dimensions, unreadable
     * content) no chunk and no record of the document remains, and a document
     * replaced by external_id stays as it was. Without `background` it answers
     * when the document is READY (or with the error); with it, it answers at
     * once with the document INGESTING and its `ingestion_job_id`
     * (GetIngestionJob tells the progress and the outcome). A document is
     * searchable only once READY.
     * </pre>
     */
    public void addDocument(dev.agentd.v1.AddDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.KnowledgeDocument> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAddDocumentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The documents of a knowledge base by id, a page at a time.
     * </pre>
     */
    public void listDocuments(dev.agentd.v1.ListDocumentsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListDocumentsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListDocumentsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Delete a document with its chunks and vectors.
     * </pre>
     */
    public void deleteDocument(dev.agentd.v1.DeleteDocumentRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteDocumentResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getDeleteDocumentMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Hit testing: the passages of a knowledge base a search_knowledge call
     * with this query would retrieve (hybrid search, cut at the threshold).
     * </pre>
     */
    public void searchKnowledge(dev.agentd.v1.SearchKnowledgeRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.SearchKnowledgeResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getSearchKnowledgeMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * An ingestion job of the tenant (AddDocument's `ingestion_job_id`): its
     * state, progress and, when it failed, why. Needs the role AddDocument
     * needs; NOT_FOUND (MEMORY_NOT_FOUND) for another tenant's job.
     * </pre>
     */
    public void getIngestionJob(dev.agentd.v1.GetIngestionJobRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.IngestionJob> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetIngestionJobMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * The ingestion jobs of a knowledge base by id (oldest first), a page at a
     * time. Needs the role AddDocument needs.
     * </pre>
     */
    public void listIngestionJobs(dev.agentd.v1.ListIngestionJobsRequest request,
        io.grpc.stub.StreamObserver<dev.agentd.v1.ListIngestionJobsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListIngestionJobsMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * Long-term memory: what agents remember about an end user across
   * conversations. Every call concerns the calling principal's own memories
   * in its tenant: the end user a gateway names with `agentd-on-behalf-of`,
   * or the caller itself. No call reaches another user's or another tenant's
   * memories, except those of shared namespaces (`shared:&lt;name&gt;`): they belong
   * to the tenant, reading one needs a role of AGENTD_MEMORY_SHARED_READ_ROLES
   * (or of AGENTD_MEMORY_SHARED_WRITE_ROLES) and adding, changing or deleting
   * one a role of AGENTD_MEMORY_SHARED_WRITE_ROLES (PERMISSION_DENIED
   * otherwise). The RPCs answer FAILED_PRECONDITION (MEMORY_UNAVAILABLE) on a
   * server without an embedding model (AGENTD_EMBEDDING_MODEL) or whose
   * PostgreSQL lacks the `vector` extension.
   * </pre>
   */
  public static final class MemoryServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<MemoryServiceBlockingStub> {
    private MemoryServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MemoryServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MemoryServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * The caller's memories, oldest first, a page at a time.
     * </pre>
     */
    public dev.agentd.v1.ListMemoriesResponse listMemories(dev.agentd.v1.ListMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The caller's memories nearest in meaning to a query.
     * </pre>
     */
    public dev.agentd.v1.SearchMemoriesResponse searchMemories(dev.agentd.v1.SearchMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSearchMemoriesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Delete one memory of the caller, or of a shared namespace (a write
     * role); NOT_FOUND (MEMORY_NOT_FOUND) when the caller has none of that id.
     * </pre>
     */
    public dev.agentd.v1.DeleteMemoryResponse deleteMemory(dev.agentd.v1.DeleteMemoryRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteMemoryMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Forget the caller: every memory of theirs in the tenant, in every
     * namespace, the memories they wrote into shared namespaces included, with
     * its vector and keyword index entries and anything a server process cached
     * of it. The RPC audit record of the call names the
     * user forgotten (its principal) and the gateway that asked (via).
     * </pre>
     */
    public dev.agentd.v1.ForgetUserResponse forgetUser(dev.agentd.v1.ForgetUserRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getForgetUserMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Create an empty knowledge base; ALREADY_EXISTS (KNOWLEDGE_BASE_EXISTS)
     * when the tenant has that id.
     * </pre>
     */
    public dev.agentd.v1.KnowledgeBase createKnowledgeBase(dev.agentd.v1.CreateKnowledgeBaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateKnowledgeBaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The tenant's knowledge bases by id, a page at a time.
     * </pre>
     */
    public dev.agentd.v1.ListKnowledgeBasesResponse listKnowledgeBases(dev.agentd.v1.ListKnowledgeBasesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListKnowledgeBasesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Delete a knowledge base with its documents, their chunks and vectors.
     * </pre>
     */
    public dev.agentd.v1.DeleteKnowledgeBaseResponse deleteKnowledgeBase(dev.agentd.v1.DeleteKnowledgeBaseRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteKnowledgeBaseMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Parse, chunk, embed and store a document. Ingestion is all or nothing:
     * on any failure (embeddings endpoint down, wrong dimensions, unreadable
     * content) no chunk and no record of the document remains, and a document
     * replaced by external_id stays as it was. Without `background` it answers
     * when the document is READY (or with the error); with it, it answers at
     * once with the document INGESTING and its `ingestion_job_id`
     * (GetIngestionJob tells the progress and the outcome). A document is
     * searchable only once READY.
     * </pre>
     */
    public dev.agentd.v1.KnowledgeDocument addDocument(dev.agentd.v1.AddDocumentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAddDocumentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The documents of a knowledge base by id, a page at a time.
     * </pre>
     */
    public dev.agentd.v1.ListDocumentsResponse listDocuments(dev.agentd.v1.ListDocumentsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListDocumentsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Delete a document with its chunks and vectors.
     * </pre>
     */
    public dev.agentd.v1.DeleteDocumentResponse deleteDocument(dev.agentd.v1.DeleteDocumentRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getDeleteDocumentMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Hit testing: the passages of a knowledge base a search_knowledge call
     * with this query would retrieve (hybrid search, cut at the threshold).
     * </pre>
     */
    public dev.agentd.v1.SearchKnowledgeResponse searchKnowledge(dev.agentd.v1.SearchKnowledgeRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getSearchKnowledgeMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * An ingestion job of the tenant (AddDocument's `ingestion_job_id`): its
     * state, progress and, when it failed, why. Needs the role AddDocument
     * needs; NOT_FOUND (MEMORY_NOT_FOUND) for another tenant's job.
     * </pre>
     */
    public dev.agentd.v1.IngestionJob getIngestionJob(dev.agentd.v1.GetIngestionJobRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetIngestionJobMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * The ingestion jobs of a knowledge base by id (oldest first), a page at a
     * time. Needs the role AddDocument needs.
     * </pre>
     */
    public dev.agentd.v1.ListIngestionJobsResponse listIngestionJobs(dev.agentd.v1.ListIngestionJobsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListIngestionJobsMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * Long-term memory: what agents remember about an end user across
   * conversations. Every call concerns the calling principal's own memories
   * in its tenant: the end user a gateway names with `agentd-on-behalf-of`,
   * or the caller itself. No call reaches another user's or another tenant's
   * memories, except those of shared namespaces (`shared:&lt;name&gt;`): they belong
   * to the tenant, reading one needs a role of AGENTD_MEMORY_SHARED_READ_ROLES
   * (or of AGENTD_MEMORY_SHARED_WRITE_ROLES) and adding, changing or deleting
   * one a role of AGENTD_MEMORY_SHARED_WRITE_ROLES (PERMISSION_DENIED
   * otherwise). The RPCs answer FAILED_PRECONDITION (MEMORY_UNAVAILABLE) on a
   * server without an embedding model (AGENTD_EMBEDDING_MODEL) or whose
   * PostgreSQL lacks the `vector` extension.
   * </pre>
   */
  public static final class MemoryServiceFutureStub extends io.grpc.stub.AbstractFutureStub<MemoryServiceFutureStub> {
    private MemoryServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected MemoryServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new MemoryServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * The caller's memories, oldest first, a page at a time.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListMemoriesResponse> listMemories(
        dev.agentd.v1.ListMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListMemoriesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The caller's memories nearest in meaning to a query.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.SearchMemoriesResponse> searchMemories(
        dev.agentd.v1.SearchMemoriesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSearchMemoriesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Delete one memory of the caller, or of a shared namespace (a write
     * role); NOT_FOUND (MEMORY_NOT_FOUND) when the caller has none of that id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteMemoryResponse> deleteMemory(
        dev.agentd.v1.DeleteMemoryRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteMemoryMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Forget the caller: every memory of theirs in the tenant, in every
     * namespace, the memories they wrote into shared namespaces included, with
     * its vector and keyword index entries and anything a server process cached
     * of it. The RPC audit record of the call names the
     * user forgotten (its principal) and the gateway that asked (via).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ForgetUserResponse> forgetUser(
        dev.agentd.v1.ForgetUserRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getForgetUserMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Create an empty knowledge base; ALREADY_EXISTS (KNOWLEDGE_BASE_EXISTS)
     * when the tenant has that id.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.KnowledgeBase> createKnowledgeBase(
        dev.agentd.v1.CreateKnowledgeBaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateKnowledgeBaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The tenant's knowledge bases by id, a page at a time.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListKnowledgeBasesResponse> listKnowledgeBases(
        dev.agentd.v1.ListKnowledgeBasesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListKnowledgeBasesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Delete a knowledge base with its documents, their chunks and vectors.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteKnowledgeBaseResponse> deleteKnowledgeBase(
        dev.agentd.v1.DeleteKnowledgeBaseRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteKnowledgeBaseMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Parse, chunk, embed and store a document. Ingestion is all or nothing:
     * on any failure (embeddings endpoint down, wrong dimensions, unreadable
     * content) no chunk and no record of the document remains, and a document
     * replaced by external_id stays as it was. Without `background` it answers
     * when the document is READY (or with the error); with it, it answers at
     * once with the document INGESTING and its `ingestion_job_id`
     * (GetIngestionJob tells the progress and the outcome). A document is
     * searchable only once READY.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.KnowledgeDocument> addDocument(
        dev.agentd.v1.AddDocumentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAddDocumentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The documents of a knowledge base by id, a page at a time.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListDocumentsResponse> listDocuments(
        dev.agentd.v1.ListDocumentsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListDocumentsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Delete a document with its chunks and vectors.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.DeleteDocumentResponse> deleteDocument(
        dev.agentd.v1.DeleteDocumentRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getDeleteDocumentMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Hit testing: the passages of a knowledge base a search_knowledge call
     * with this query would retrieve (hybrid search, cut at the threshold).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.SearchKnowledgeResponse> searchKnowledge(
        dev.agentd.v1.SearchKnowledgeRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getSearchKnowledgeMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * An ingestion job of the tenant (AddDocument's `ingestion_job_id`): its
     * state, progress and, when it failed, why. Needs the role AddDocument
     * needs; NOT_FOUND (MEMORY_NOT_FOUND) for another tenant's job.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.IngestionJob> getIngestionJob(
        dev.agentd.v1.GetIngestionJobRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetIngestionJobMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * The ingestion jobs of a knowledge base by id (oldest first), a page at a
     * time. Needs the role AddDocument needs.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<dev.agentd.v1.ListIngestionJobsResponse> listIngestionJobs(
        dev.agentd.v1.ListIngestionJobsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListIngestionJobsMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_LIST_MEMORIES = 0;
  private static final int METHODID_SEARCH_MEMORIES = 1;
  private static final int METHODID_DELETE_MEMORY = 2;
  private static final int METHODID_FORGET_USER = 3;
  private static final int METHODID_CREATE_KNOWLEDGE_BASE = 4;
  private static final int METHODID_LIST_KNOWLEDGE_BASES = 5;
  private static final int METHODID_DELETE_KNOWLEDGE_BASE = 6;
  private static final int METHODID_ADD_DOCUMENT = 7;
  private static final int METHODID_LIST_DOCUMENTS = 8;
  private static final int METHODID_DELETE_DOCUMENT = 9;
  private static final int METHODID_SEARCH_KNOWLEDGE = 10;
  private static final int METHODID_GET_INGESTION_JOB = 11;
  private static final int METHODID_LIST_INGESTION_JOBS = 12;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final MemoryServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(MemoryServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_LIST_MEMORIES:
          serviceImpl.listMemories((dev.agentd.v1.ListMemoriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListMemoriesResponse>) responseObserver);
          break;
        case METHODID_SEARCH_MEMORIES:
          serviceImpl.searchMemories((dev.agentd.v1.SearchMemoriesRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.SearchMemoriesResponse>) responseObserver);
          break;
        case METHODID_DELETE_MEMORY:
          serviceImpl.deleteMemory((dev.agentd.v1.DeleteMemoryRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteMemoryResponse>) responseObserver);
          break;
        case METHODID_FORGET_USER:
          serviceImpl.forgetUser((dev.agentd.v1.ForgetUserRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ForgetUserResponse>) responseObserver);
          break;
        case METHODID_CREATE_KNOWLEDGE_BASE:
          serviceImpl.createKnowledgeBase((dev.agentd.v1.CreateKnowledgeBaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.KnowledgeBase>) responseObserver);
          break;
        case METHODID_LIST_KNOWLEDGE_BASES:
          serviceImpl.listKnowledgeBases((dev.agentd.v1.ListKnowledgeBasesRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListKnowledgeBasesResponse>) responseObserver);
          break;
        case METHODID_DELETE_KNOWLEDGE_BASE:
          serviceImpl.deleteKnowledgeBase((dev.agentd.v1.DeleteKnowledgeBaseRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteKnowledgeBaseResponse>) responseObserver);
          break;
        case METHODID_ADD_DOCUMENT:
          serviceImpl.addDocument((dev.agentd.v1.AddDocumentRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.KnowledgeDocument>) responseObserver);
          break;
        case METHODID_LIST_DOCUMENTS:
          serviceImpl.listDocuments((dev.agentd.v1.ListDocumentsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListDocumentsResponse>) responseObserver);
          break;
        case METHODID_DELETE_DOCUMENT:
          serviceImpl.deleteDocument((dev.agentd.v1.DeleteDocumentRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.DeleteDocumentResponse>) responseObserver);
          break;
        case METHODID_SEARCH_KNOWLEDGE:
          serviceImpl.searchKnowledge((dev.agentd.v1.SearchKnowledgeRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.SearchKnowledgeResponse>) responseObserver);
          break;
        case METHODID_GET_INGESTION_JOB:
          serviceImpl.getIngestionJob((dev.agentd.v1.GetIngestionJobRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.IngestionJob>) responseObserver);
          break;
        case METHODID_LIST_INGESTION_JOBS:
          serviceImpl.listIngestionJobs((dev.agentd.v1.ListIngestionJobsRequest) request,
              (io.grpc.stub.StreamObserver<dev.agentd.v1.ListIngestionJobsResponse>) responseObserver);
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

  private static abstract class MemoryServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    MemoryServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return dev.agentd.v1.MemoryProto.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("MemoryService");
    }
  }

  private static final class MemoryServiceFileDescriptorSupplier
      extends MemoryServiceBaseDescriptorSupplier {
    MemoryServiceFileDescriptorSupplier() {}
  }

  private static final class MemoryServiceMethodDescriptorSupplier
      extends MemoryServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    MemoryServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (MemoryServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new MemoryServiceFileDescriptorSupplier())
              .addMethod(getListMemoriesMethod())
              .addMethod(getSearchMemoriesMethod())
              .addMethod(getDeleteMemoryMethod())
              .addMethod(getForgetUserMethod())
              .addMethod(getCreateKnowledgeBaseMethod())
              .addMethod(getListKnowledgeBasesMethod())
              .addMethod(getDeleteKnowledgeBaseMethod())
              .addMethod(getAddDocumentMethod())
              .addMethod(getListDocumentsMethod())
              .addMethod(getDeleteDocumentMethod())
              .addMethod(getSearchKnowledgeMethod())
              .addMethod(getGetIngestionJobMethod())
              .addMethod(getListIngestionJobsMethod())
              .build();
        }
      }
    }
    return result;
  }
}
