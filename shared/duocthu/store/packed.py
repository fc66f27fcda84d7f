"""An Edge index version packed for shipping (a Lambda layer, an S3 object), and unpacked where
Edge can open it.

Edge preallocates sparse files: the sample index is ~8 MB of data in ~181 MB of apparent size,
and a zip (a layer) stores the apparent size. The pack is a GNU tar with sparse members (`tar
--sparse`, at build time), zstd-compressed: only the data extents travel. Python's `tarfile`
restores the holes when it extracts, so the runtime needs no tar binary. zstd (Python 3.14's
stdlib codec, backported), not gzip: at 700 monographs it unpacks in 60 % of gzip's CPU time
and packs to 55 % of its size; an uncompressed tar would not fit the layers
(docs/performance.md, "Layers and the packed index").

Edge cannot open a shard on a read-only mount (/opt), so the runtime unpacks into a writable
data folder (/tmp on Lambda) at cold start: once per container, a second start with the same
version already there reuses it. The archive holds `manifest.json` (first) and
`versions/<version>/` (the shard, its catalogue and its prose parts), the data folder's own
layout, so the manifest and the corpus hash of the catalogue and of the parts are checked as for
any data folder. The pack is read as
one stream, once (`unpack` takes an opener: a file, or an S3 object's body), so nothing is
written to /tmp beside the index it unpacks.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from backports.zstd import CompressionParameter, ZstdError, ZstdFile
from pydantic import BaseModel

from duocthu.store.base import Manifest
from duocthu.store.prose_parts import PARTS_FILE

log = logging.getLogger(__name__)

MANIFEST_FILE = "manifest.json"  # the Edge data folder's pointer (duocthu.store.edge)
CATALOG_FILE = "catalog.json"
PACKED_FILE = "index.tar.zst"
# zstd's level: 19 packs the 700-monograph bench book 17 % smaller in 25x the build time; the
# unpack costs the same at every level
ZSTD_LEVEL = 9
# zstd's own checksum of each frame's content, checked as it decompresses: a pack damaged in
# transit fails the unpack instead of leaving a shard that reads wrong
ZSTD_OPTIONS: dict[int, int] = {
    CompressionParameter.compression_level: ZSTD_LEVEL,
    CompressionParameter.checksum_flag: 1,
}
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
    if not _whole(data_dir / version):
        raise PackError(f"version {manifest.version} in {data_dir} lacks its shard, catalogue or parts file")
    out.parent.mkdir(parents=True, exist_ok=True)
    tar = subprocess.Popen(
        ["tar", "--sparse", "--format=gnu", "--owner=0", "--group=0", "--numeric-owner", "-cf", "-",
         "-C", str(data_dir), MANIFEST_FILE, str(version)],
        stdout=subprocess.PIPE,
    )  # fmt: skip
    assert tar.stdout is not None
    with ZstdFile(out, "w", options=ZSTD_OPTIONS) as handle:
        shutil.copyfileobj(tar.stdout, handle, 2**20)
    if tar.wait() != 0:
        raise PackError(f"tar failed ({tar.returncode}) packing {data_dir}")
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


def _whole(version_dir: Path) -> bool:
    """Whether a version folder holds everything a start reads: the shard, the catalogue, the
    prose parts read at ingest (store.prose_parts)."""
    return (
        (version_dir / "shard").is_dir()
        and (version_dir / CATALOG_FILE).is_file()
        and (version_dir / PARTS_FILE).is_file()
    )


def read_manifest(path: Path) -> Manifest | None:
    return Manifest.model_validate_json(path.read_bytes()) if path.is_file() else None


Opener = Callable[[], IO[bytes]]  # a fresh stream of the pack's bytes (a file, an S3 body)


@contextlib.contextmanager
def pack_stream(open_pack: Opener) -> Iterator[tarfile.TarFile]:
    """The pack's members, in order, read once (tarfile's stream mode: no seeking back)."""
    try:
        with open_pack() as raw, ZstdFile(raw, "r") as plain, tarfile.open(fileobj=plain, mode="r|") as tar:
            yield tar
    except (ZstdError, tarfile.TarError) as err:
        raise PackError(f"not a zstd-compressed tar of an index version: {err}") from err


def file_opener(archive: Path) -> Opener:
    return lambda: archive.open("rb")


def _manifest_of(tar: tarfile.TarFile, name: str) -> tuple[Manifest, bytes]:
    first = tar.next()
    handle = tar.extractfile(first) if first is not None and first.name == MANIFEST_FILE else None
    if handle is None:
        raise PackError(f"{name} does not start with {MANIFEST_FILE}: not an index pack")
    raw = handle.read()
    return Manifest.model_validate_json(raw), raw


def packed_manifest(archive: Path) -> Manifest:
    """The manifest a pack holds, read from its first member without extracting the rest."""
    with pack_stream(file_opener(archive)) as tar:
        return _manifest_of(tar, str(archive))[0]


def unpack(open_pack: Opener, data_dir: Path, name: str = PACKED_FILE) -> Manifest:
    """Makes `data_dir` serve the pack's version and returns its manifest, reading the pack once.
    Reuses the version already there (a warm container, a second init: only the first member is
    read); else extracts beside it and moves it in, so an interrupted unpack never leaves a half
    version that a later start would take for whole."""
    with pack_stream(open_pack) as tar:
        manifest, raw = _manifest_of(tar, name)
        current = read_manifest(data_dir / MANIFEST_FILE)
        target = data_dir / "versions" / manifest.version
        if current == manifest and _whole(target):
            log.info("index version %s already unpacked in %s", manifest.version, data_dir)
            return manifest
        data_dir.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(dir=data_dir, prefix=".unpack-"))
        try:
            (scratch / MANIFEST_FILE).write_bytes(raw)
            prefix = f"versions/{manifest.version}/"

            def only_the_version(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
                if member.name != prefix.rstrip("/") and not member.name.startswith(prefix):
                    raise PackError(f"{name} holds files outside its version: {member.name}")
                return tarfile.data_filter(member, dest)  # no links out, no devices, no absolute paths

            def rest() -> Iterator[tarfile.TarInfo]:  # the members after the manifest, as they come
                while (member := tar.next()) is not None:
                    yield member

            tar.extractall(scratch, members=rest(), filter=only_the_version)
            # to the stream's end, before anything moves in: zstd checks the frame's checksum
            # there, and a damaged byte can decode without error (tar stops at its last member)
            assert tar.fileobj is not None
            while tar.fileobj.read(2**20):
                pass
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
