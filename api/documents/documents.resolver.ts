import { Arg, Ctx, Field, FieldResolver, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root } from "type-graphql";
import { Access } from "../graphql/access.js";
import type { Context } from "../graphql/context.js";
import { DOCUMENT_TYPES } from "./document.entity.js";
import * as docs from "./documents.service.js";

@ObjectType("Document", { description: "An uploaded file: a PDF, PNG or JPEG" })
export class DocumentType {
  @Field(() => ID) id: string;
  @Field(() => String, { description: "The file's name, cleaned of paths and control characters" }) filename: string;
  @Field(() => String, { description: "application/pdf, image/png or image/jpeg, as read from the file's content" }) contentType: string;
  @Field(() => Int) sizeBytes: number;
  @Field(() => String, { description: "SHA-256 of the content, in hexadecimal" }) sha256: string;
  @Field(() => ID, { nullable: true, description: "The organization it was uploaded for, if any" }) organizationId: string | null;
  @Field(() => Date) createdAt: Date;
}

@ObjectType("DocumentUploadPolicy", { description: "What uploadDocument accepts" })
export class DocumentUploadPolicyType {
  @Field(() => Int) maxBytes: number;
  @Field(() => String, { description: 'The size limit as people read it, e.g. "10 MB"' }) maxSize: string;
  @Field(() => [String]) contentTypes: string[];
}

@InputType()
export class UploadDocumentInput {
  @Field(() => String) filename: string;
  @Field(() => String, { description: "The file's bytes, base64-encoded" }) contentBase64: string;
  @Field(() => ID, { nullable: true, description: "An organization I belong to, whose members may then read it" }) organizationId?: string | null;
}

@Resolver(() => DocumentType)
export class DocumentsResolver {
  @Access("SIGNED_IN")
  @Query(() => [DocumentType], { description: "Documents I uploaded, newest first" })
  myDocuments(@Ctx() ctx: Context) {
    return docs.listMyDocuments(ctx.ds, ctx.viewer!);
  }

  @Access("SIGNED_IN")
  @Query(() => DocumentType, { description: "A document I may read (NOT_FOUND otherwise)" })
  document(@Arg("id", () => ID) id: string, @Ctx() ctx: Context) {
    return docs.getDocument(ctx.ds, ctx.viewer!, id);
  }

  @Access("SIGNED_IN")
  @Query(() => DocumentUploadPolicyType)
  documentUploadPolicy(@Ctx() ctx: Context): DocumentUploadPolicyType {
    return { maxBytes: ctx.config.uploadMaxBytes, maxSize: docs.formatMegabytes(ctx.config.uploadMaxBytes), contentTypes: [...DOCUMENT_TYPES] };
  }

  @Access("SIGNED_IN")
  @Mutation(() => DocumentType, { description: "Stores a PDF, PNG or JPEG; the type is read from the content, not the name" })
  uploadDocument(@Arg("input", () => UploadDocumentInput) input: UploadDocumentInput, @Ctx() ctx: Context) {
    return docs.storeDocument(ctx.ds, ctx.config, ctx.viewer!, input, ctx.requestId);
  }

  @FieldResolver(() => String, { description: "GET this path with the session cookie or a bearer token to download the file" })
  downloadUrl(@Root() d: DocumentType): string {
    return `/documents/${d.id}`;
  }
}
