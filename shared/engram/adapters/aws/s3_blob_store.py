"""BlobStore on S3: attachments and add requests too large to keep inline."""

from __future__ import annotations

from typing import TYPE_CHECKING

from botocore.exceptions import ClientError

from engram.adapters.aws.clients import aws_errors, error_code
from engram.domain.errors import NotFoundError

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client

_MISSING_OBJECT = frozenset({"NoSuchKey", "404", "NotFound"})


class S3BlobStore:
    def __init__(self, client: S3Client, bucket: str) -> None:
        self._s3 = client
        self._bucket = bucket

    def put(self, key: str, data: bytes, content_type: str = "application/octet-stream") -> None:
        with aws_errors(f"s3://{self._bucket}"):
            self._s3.put_object(Bucket=self._bucket, Key=key, Body=data, ContentType=content_type)

    def get(self, key: str) -> bytes:
        with aws_errors(f"s3://{self._bucket}"):
            try:
                resp = self._s3.get_object(Bucket=self._bucket, Key=key)
                with resp["Body"] as body:
                    return body.read()
            except ClientError as err:
                if error_code(err) in _MISSING_OBJECT:
                    raise NotFoundError("blob", key) from err
                raise

    def delete(self, key: str) -> None:
        """Idempotent: deleting a missing object is not an error (S3 semantics)."""
        with aws_errors(f"s3://{self._bucket}"):
            self._s3.delete_object(Bucket=self._bucket, Key=key)

    def presign_get(self, key: str, expires_in: int = 300) -> str:
        with aws_errors(f"s3://{self._bucket}"):
            return self._s3.generate_presigned_url(
                "get_object", Params={"Bucket": self._bucket, "Key": key}, ExpiresIn=expires_in
            )

    def presign_put(self, key: str, content_type: str, expires_in: int = 300) -> str:
        # ContentType is signed: the uploader must send the same Content-Type header.
        with aws_errors(f"s3://{self._bucket}"):
            return self._s3.generate_presigned_url(
                "put_object",
                Params={"Bucket": self._bucket, "Key": key, "ContentType": content_type},
                ExpiresIn=expires_in,
            )
