"""The workbench's page and JSON API (every API route behind :func:`.gate.managed`).

- ``GET /workbench``: the page (``static/workbench.html``, drawn by ``workbench.js``): with
  status 200 when the URL carries the management token (``?token=``, the URL ``--manage``
  printed), else 403, for the page to manage with the token its origin kept, if any;
- ``GET /api/workbench/engines``: the engines file's engines;
- ``POST /api/workbench/probe`` ``{cmd, dir}``: the engine's handshake (name, author, options);
- ``POST /api/workbench/engines/save`` ``{engine, original}``: add (``original`` null) or edit;
- ``POST /api/workbench/engines/remove`` ``{name}``;
- ``POST /api/workbench/engines/check`` ``{name, timeout}``: ``dipole-arbiter check-engine``'s
  lines (its own option checks judge ``timeout``);
- ``GET /api/workbench/form``: what the new-event form offers (every installed game's variants,
  formats, suites, whether the cluster extra is installed);
- ``GET /api/workbench/events``: every event database of the events directory (:mod:`.events`);
- ``POST /api/workbench/events/start`` (the form), ``.../stop`` and ``.../resume`` ``{name}``;
- ``GET /api/workbench/events/pgn?name=`` and ``.../report?name=``: downloads (``export``,
  ``ratings --report``);
- ``GET /api/workbench/ratings``: the ratings over every finished game of the directory
  (:mod:`.ratings`).

An answer that fails is ``{"error": "<one line>"}`` (the arbiter's words where it said them).
"""

from __future__ import annotations

import asyncio
import importlib.util
import re
import tempfile
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

import gameplug
from arbiter.errors import ArbiterError
from arbiter.openings.choice import SHIPPED

from . import Workbench, events
from .book import EngineBook, Entry, probe
from .gate import OFF, is_management_token, managed, refusal
from .http import BadRequest, failure, read_json, text_field
from .ratings import directory_ratings

STATIC_DIR = Path(__file__).parent.parent / "static"


def _book(request: Request) -> EngineBook:
    workbench: Workbench = request.app.state.workbench
    return EngineBook(workbench.engines_file)


def _engines_json(book: EngineBook, entries: list[Entry]) -> JSONResponse:
    return JSONResponse({"engines": [entry.page() for entry in entries], "file": book.path})


async def workbench_page(request: Request) -> Response:
    if refusal(request) == OFF:
        return PlainTextResponse(OFF, 403)
    # The page holds nothing secret: its script finds the token (the URL's, else the one its
    # origin's storage kept) and sends it with each request; without any, each answers 403.
    status = 200 if is_management_token(request, request.query_params.get("token", "")) else 403
    return FileResponse(STATIC_DIR / "workbench.html", status, media_type="text/html")


@managed
async def engines_list(request: Request) -> Response:
    book = _book(request)
    try:
        entries, _ = book.read()
    except ArbiterError as error:
        return JSONResponse({"engines": [], "file": book.path, "error": str(error)})
    return _engines_json(book, entries)


@managed
async def engine_probe(request: Request) -> Response:
    try:
        data = await read_json(request)
        found = await asyncio.to_thread(probe, text_field(data, "cmd"), text_field(data, "dir", required=False))
    except (BadRequest, ArbiterError) as error:
        return failure(str(error))
    return JSONResponse(found)


@managed
async def engine_save(request: Request) -> Response:
    book = _book(request)
    try:
        data = await read_json(request)
        original = data.get("original")
        if original is not None and not isinstance(original, str):
            raise BadRequest("original: expected the name of an engine")
        entries = await asyncio.to_thread(book.save, Entry.of_json(data.get("engine")), original)
    except (BadRequest, ArbiterError) as error:
        return failure(str(error))
    return _engines_json(book, entries)


@managed
async def engine_remove(request: Request) -> Response:
    book = _book(request)
    try:
        entries = await asyncio.to_thread(book.remove, text_field(await read_json(request), "name"))
    except (BadRequest, ArbiterError) as error:
        return failure(str(error))
    return _engines_json(book, entries)


@managed
async def engine_check(request: Request) -> Response:
    book = _book(request)
    try:
        data = await read_json(request)
        entry = book.find(text_field(data, "name"))
        checks = _workbench(request).checks
        return JSONResponse(await asyncio.to_thread(checks.run, entry, text_field(data, "timeout") or "10"))
    except (BadRequest, ArbiterError) as error:
        return failure(str(error))


def _workbench(request: Request) -> Workbench:
    workbench: Workbench = request.app.state.workbench
    return workbench


@managed
async def form_info(request: Request) -> Response:
    return JSONResponse(
        {
            "variants": [variant.name for variant in gameplug.all_variants()],
            "formats": list(events.FORMATS),
            "suites": [name for name, stem in SHIPPED.items() if name == stem],
            "cluster": importlib.util.find_spec("distributed") is not None,
        }
    )


@managed
async def events_list(request: Request) -> Response:
    return JSONResponse(
        {
            "events": await asyncio.to_thread(events.event_list, _workbench(request).events_dir),
            "directory": _workbench(request).events_dir,
        }
    )


@managed
async def event_start(request: Request) -> Response:
    workbench = _workbench(request)
    try:
        name = await asyncio.to_thread(
            events.start_event,
            await read_json(request),
            workbench.events_dir,
            workbench.engines_file,
            workbench.max_concurrency,
        )
    except (BadRequest, ArbiterError) as error:
        return failure(str(error))
    return JSONResponse({"name": name})


@managed
async def event_stop(request: Request) -> Response:
    try:
        events.stop_event(_workbench(request).events_dir, text_field(await read_json(request), "name"))
    except (BadRequest, ArbiterError) as error:
        return failure(str(error))
    return JSONResponse({"ok": True})


@managed
async def event_resume(request: Request) -> Response:
    try:
        name = text_field(await read_json(request), "name")
        workbench = _workbench(request)
        await asyncio.to_thread(events.resume_event, workbench.events_dir, name, workbench.max_concurrency)
    except (BadRequest, ArbiterError) as error:
        return failure(str(error))
    return JSONResponse({"ok": True})


def _download(text: str, filename: str, media_type: str) -> Response:
    plain = re.sub(r"[^A-Za-z0-9._-]", "_", filename)  # a hand-made database's name may hold anything
    return Response(text, media_type=media_type, headers={"content-disposition": f'attachment; filename="{plain}"'})


@managed
async def event_pgn(request: Request) -> Response:
    name = request.query_params.get("name", "")
    try:
        text = await asyncio.to_thread(events.export_pgn, _workbench(request).events_dir, name)
    except ArbiterError as error:
        return failure(str(error))
    return _download(text, Path(name).stem + ".pgn", "application/x-chess-pgn")


@managed
async def event_report(request: Request) -> Response:
    name = request.query_params.get("name", "")
    try:
        with tempfile.TemporaryDirectory() as scratch:
            text = await asyncio.to_thread(events.report_html, _workbench(request).events_dir, name, scratch)
    except ArbiterError as error:
        return failure(str(error))
    return _download(text, Path(name).stem + "-report.html", "text/html")


@managed
async def ratings_page_data(request: Request) -> Response:
    return JSONResponse(await asyncio.to_thread(directory_ratings, _workbench(request).events_dir))


def workbench_routes() -> list[BaseRoute]:
    """The workbench's routes (see the module docstring); each refuses unless managing is on."""
    return [
        Route("/workbench", workbench_page),
        Route("/api/workbench/engines", engines_list),
        Route("/api/workbench/probe", engine_probe, methods=["POST"]),
        Route("/api/workbench/engines/save", engine_save, methods=["POST"]),
        Route("/api/workbench/engines/remove", engine_remove, methods=["POST"]),
        Route("/api/workbench/engines/check", engine_check, methods=["POST"]),
        Route("/api/workbench/form", form_info),
        Route("/api/workbench/events", events_list),
        Route("/api/workbench/events/start", event_start, methods=["POST"]),
        Route("/api/workbench/events/stop", event_stop, methods=["POST"]),
        Route("/api/workbench/events/resume", event_resume, methods=["POST"]),
        Route("/api/workbench/events/pgn", event_pgn),
        Route("/api/workbench/events/report", event_report),
        Route("/api/workbench/ratings", ratings_page_data),
    ]
