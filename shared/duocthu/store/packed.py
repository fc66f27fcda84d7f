"""An Edge index version packed for shipping (a Lambda layer, an S3 object), and unpacked where
Edge can open it.

Edge preallocates sparse files: the sample index is ~6 MB of data in ~211 MB of apparent size,
and a zip (a layer) stores the apparent size. The pack is a GNU tar with sparse members (`tar
--sparse`, at build time), gzip-compressed: only the data extents travel. Python's `tarfile`
restores the holes when it extracts, so the runtime needs no tar binary.

Edge cannot open a shard on a read-only mount (/opt), so the runtime unpacks into a writable
data folder (/tmp on Lambda) at cold start: once per container, a second start with the same
version already there reuses it. The archive holds `manifest.json` (first) and
`versions/<version>/` (the shard and its catalogue), the data folder's own layout, so the
manifest and the catalogue's corpus hash are checked as for any data folder.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from pydantic import BaseModel

from duocthu.store.base import Manifest

log = logging.getLogger(__name__)

MANIFEST_FILE = "manifest.json"  # the Edge data folder's pointer (duocthu.store.edge)
CATALOG_FILE = "catalog.json"
PACKED_FILE = "index.tar.gz"
INFO_FILE = "index.json"  # beside the pack: what it holds and what it unpacks to


class PackInfo(BaseModel):
    version: str
    corpus_hash: str
    drugs: int
    packed_bytes: int
    apparent_bytes: int  # what the unpacked files claim; /tmp is sized for this (holes may not survive)
    disk_bytes: int  # the data extents actually written


class PackError(RuntimeError):
    """The pack is not an index version (or not the one it says it is)."""


def tree_bytes(folder: Path) -> tuple[int, int]:
    """(apparent, on disk) bytes of the files under a folder."""
    apparent = disk = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            stat = path.stat()
            apparent += stat.st_size
            disk += stat.st_blocks * 512
    return apparent, disk


def pack(data_dir: Path, out: Path) -> PackInfo:
    """Packs the data folder's active version (with its catalogue) into `out`, and writes its
    PackInfo beside it (INFO_FILE). Needs GNU tar (the build machine's)."""
    manifest = read_manifest(data_dir / MANIFEST_FILE)
    if manifest is None:
        raise PackError(f"no index in {data_dir}: run `duocthu ingest` first")
    version = Path("versions") / manifest.version
    if not (data_dir / version / CATALOG_FILE).is_file() or not (data_dir / version / "shard").is_dir():
        raise PackError(f"version {manifest.version} in {data_dir} lacks its shard or its catalogue")
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["tar", "--sparse", "--format=gnu", "--owner=0", "--group=0", "--numeric-owner", "-czf",
         str(out), "-C", str(data_dir), MANIFEST_FILE, str(version)],
        check=True,
    )  # fmt: skip
    apparent, disk = tree_bytes(data_dir / version)
    info = PackInfo(
        version=manifest.version,
        corpus_hash=manifest.corpus_hash,
        drugs=manifest.drugs,
        packed_bytes=out.stat().st_size,
        apparent_bytes=apparent,
        disk_bytes=disk,
    )
    (out.parent / INFO_FILE).write_text(info.model_dump_json(indent=2), encoding="utf-8")
    return info


def read_manifest(path: Path) -> Manifest | None:
    return Manifest.model_validate_json(path.read_bytes()) if path.is_file() else None


def packed_manifest(archive: Path) -> Manifest:
    """The manifest a pack holds, read from its first member without extracting the rest."""
    with tarfile.open(archive, "r|gz") as stream:
        first = stream.next()
        handle = stream.extractfile(first) if first is not None and first.name == MANIFEST_FILE else None
        if handle is None:
            raise PackError(f"{archive} does not start with {MANIFEST_FILE}: not an index pack")
        return Manifest.model_validate_json(handle.read())


def unpack(archive: Path, data_dir: Path) -> Manifest:
    """Makes `data_dir` serve the pack's version and returns its manifest. Reuses the version
    already there (a warm container, a second init); else extracts beside it and moves it in, so
    an interrupted unpack never leaves a half version that a later start would take for whole."""
    manifest = packed_manifest(archive)
    current = read_manifest(data_dir / MANIFEST_FILE)
    target = data_dir / "versions" / manifest.version
    if current == manifest and (target / "shard").is_dir() and (target / CATALOG_FILE).is_file():
        log.info("index version %s already unpacked in %s", manifest.version, data_dir)
        return manifest
    data_dir.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=data_dir, prefix=".unpack-"))
    try:
        expected = (MANIFEST_FILE, f"versions/{manifest.version}/")

        def only_the_version(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
            if member.name != expected[1].rstrip("/") and not member.name.startswith(expected):
                raise PackError(f"{archive} holds files outside its version: {member.name}")
            return tarfile.data_filter(member, dest)  # no links out, no devices, no absolute paths

        with tarfile.open(archive, "r|gz") as tar:  # one pass over the stream
            tar.extractall(scratch, filter=only_the_version)
        if target.exists():  # a leftover of an interrupted start: never pointed to, safe to replace
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(scratch / "versions" / manifest.version, target)
        os.replace(scratch / MANIFEST_FILE, data_dir / MANIFEST_FILE)  # the pointer moves last
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    log.info("unpacked index version %s into %s", manifest.version, data_dir)
    return manifest


def read_info(folder: Path) -> PackInfo:
    return PackInfo.model_validate(json.loads((folder / INFO_FILE).read_text(encoding="utf-8")))
