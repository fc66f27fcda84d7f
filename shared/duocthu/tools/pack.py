"""`duocthu pack`: a formulary source -> a fresh Edge index version with its catalogue -> one
sparse-aware pack (duocthu.store.packed), for the data layer or an S3 object.

    duocthu pack --out build/duocthu/index.tar.zst [--source book.jsonl] [--s3 s3://bucket/prefix]

Ingests into a scratch folder (never the developer's .duocthu), so the pack holds exactly one
version. With --s3, the pack and the catalogue are also published under the version's own keys
(publish_version, below): a re-ingest never overwrites what containers read.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import boto3

from duocthu.ingest.pipeline import ingest_path
from duocthu.ingest.source import SourceError, sample_formulary_path
from duocthu.settings import Settings
from duocthu.store.base import Manifest
from duocthu.store.catalog import bucket_key, version_uri
from duocthu.store.edge import EdgeStore
from duocthu.store.packed import CATALOG_FILE, PACKED_FILE, pack


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="the pack to write (its index.json goes beside it)")
    parser.add_argument("--source", help="folder of <drug_id>.json or a .jsonl file (default: the sample)")
    parser.add_argument("--s3", help="also publish to s3://bucket/prefix/<version>/ (PackedIndexS3Uri)")


def run(args: argparse.Namespace) -> int:
    source = Path(args.source) if args.source else sample_formulary_path()
    with tempfile.TemporaryDirectory(prefix="duocthu-pack-") as scratch:
        settings = Settings.from_env().model_copy(update={"data_dir": Path(scratch), "qdrant_url": None})
        store = EdgeStore(settings.data_dir)
        try:
            report = ingest_path(source, store, settings)
        except SourceError as err:
            print(err, file=sys.stderr)
            return 2
        finally:
            store.close()
        info = pack(settings.data_dir, Path(args.out))
        published = publish_version(settings.data_dir, args.s3, Path(args.out)) if args.s3 else []
    print(
        f"packed version {info.version} ({info.drugs} drugs, {report.points} parts): "
        f"{info.packed_bytes / 2**20:.1f} MB packed, {info.disk_bytes / 2**20:.1f} MB of data, "
        f"{info.apparent_bytes / 2**20:.0f} MB apparent once unpacked -> {args.out}"
    )
    for uri in published:
        print(f"published {uri}")
    return 0


def publish_version(data_dir: Path, prefix_uri: str, packed: Path | None = None) -> list[str]:
    """Uploads the active version's catalogue (and its pack) under the version's own keys (a build
    step: the functions never write to S3). A key that already exists is refused by S3
    (If-None-Match), never replaced: what running containers read does not change under them."""
    manifest = Manifest.model_validate_json((data_dir / "manifest.json").read_bytes())
    files = [(data_dir / "versions" / manifest.version / CATALOG_FILE, CATALOG_FILE)]
    files += [(packed, PACKED_FILE)] if packed else []
    uris = []
    for path, name in files:
        uri = version_uri(prefix_uri, manifest.version, name)
        bucket, key = bucket_key(uri)
        with path.open("rb") as body:
            boto3.client("s3").put_object(Bucket=bucket, Key=key, Body=body, IfNoneMatch="*")
        uris.append(uri)
    return uris
