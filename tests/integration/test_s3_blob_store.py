"""S3BlobStore against moto (and AwsClients' S3 settings): put/get/delete, presigned URLs, errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlparse

import boto3
import pytest
import requests
from moto import mock_aws

from engram.adapters.aws.clients import AwsClients
from engram.adapters.aws.s3_blob_store import S3BlobStore
from engram.domain.errors import EngramError, NotFoundError
from engram.settings import Settings
from tests.integration.aws_tables import create_bucket

BUCKET = "engram-blobs"


@pytest.fixture
def s3() -> Iterator[Any]:
    with mock_aws():
        client = AwsClients(Settings()).s3
        create_bucket(client, BUCKET)
        yield client


@pytest.fixture
def blobs(s3: Any) -> S3BlobStore:
    return S3BlobStore(s3, BUCKET)


def test_put_get_keeps_bytes_and_content_type(s3: Any, blobs: S3BlobStore) -> None:
    data = bytes(range(256)) * 10
    blobs.put("attachments/acme/a1.bin", data, "image/png")
    assert blobs.get("attachments/acme/a1.bin") == data
    assert s3.head_object(Bucket=BUCKET, Key="attachments/acme/a1.bin")["ContentType"] == "image/png"
    blobs.put("attachments/acme/a1.bin", b"replaced")
    assert blobs.get("attachments/acme/a1.bin") == b"replaced"


def test_missing_and_deleted_objects_are_not_found(blobs: S3BlobStore) -> None:
    with pytest.raises(NotFoundError):
        blobs.get("nothing/here")
    blobs.put("k", b"v")
    blobs.delete("k")
    with pytest.raises(NotFoundError):
        blobs.get("k")
    blobs.delete("k")  # deleting again is not an error


def test_presigned_get_downloads_the_object(blobs: S3BlobStore) -> None:
    blobs.put("docs/report.pdf", b"%PDF-1.7 ...", "application/pdf")
    url = blobs.presign_get("docs/report.pdf", expires_in=120)
    assert parse_qs(urlparse(url).query)["X-Amz-Expires"] == ["120"]
    response = requests.get(url, timeout=5)
    assert response.status_code == 200
    assert response.content == b"%PDF-1.7 ..."


def test_presigned_put_uploads_the_object(blobs: S3BlobStore) -> None:
    url = blobs.presign_put("uploads/photo.jpg", "image/jpeg", expires_in=300)
    assert "content-type" in parse_qs(urlparse(url).query)["X-Amz-SignedHeaders"][0]
    response = requests.put(url, data=b"\xff\xd8jpeg", headers={"Content-Type": "image/jpeg"}, timeout=5)
    assert response.status_code == 200
    assert blobs.get("uploads/photo.jpg") == b"\xff\xd8jpeg"


def test_a_missing_bucket_is_a_clear_error(s3: Any) -> None:
    with pytest.raises(EngramError, match="no-such-bucket") as info:
        S3BlobStore(s3, "no-such-bucket").put("k", b"v")
    assert not isinstance(info.value, NotFoundError)


def test_clients_are_built_once_on_first_use() -> None:
    built: list[str] = []

    class CountingSession(boto3.session.Session):
        def client(self, *args: Any, **kwargs: Any) -> Any:
            built.append(args[0] if args else kwargs["service_name"])
            return super().client(*args, **kwargs)

    clients = AwsClients(Settings(), session=CountingSession(region_name="us-east-1"))
    assert built == []
    assert clients.s3 is clients.s3
    assert clients.dynamodb is clients.dynamodb
    assert built == ["s3", "dynamodb"]


def test_a_local_endpoint_is_used_with_path_style_urls() -> None:
    settings = Settings(aws_endpoint_url="http://127.0.0.1:5000")
    clients = AwsClients(settings)
    assert clients.dynamodb.meta.endpoint_url == "http://127.0.0.1:5000"
    assert clients.sqs.meta.endpoint_url == "http://127.0.0.1:5000"
    url = S3BlobStore(clients.s3, BUCKET).presign_get("a/b.txt")
    assert url.startswith(f"http://127.0.0.1:5000/{BUCKET}/a/b.txt?")
