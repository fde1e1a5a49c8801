# The FastAPI reference of the API benchmark: the origin's stack (FastAPI, pydantic, uvicorn) serving
# the two operations measured, GET /v1/run/{id} and POST /v1/run/, over SQLite (WAL, synchronous
# FULL, a commit per POST, as Skillrun keeps it). A bearer key is checked against a table read once.
# `python3 fastapi-reference.py <database file> <key>`; prints "fastapi listening on <address>".
import json
import socket
import sqlite3
import sys
import uuid
from datetime import datetime, timezone
from typing import Any, Dict, Optional

import uvicorn
from fastapi import Depends, FastAPI, Header, HTTPException
from pydantic import BaseModel

DATABASE, KEY = sys.argv[1], sys.argv[2]
db = sqlite3.connect(DATABASE, check_same_thread=False, isolation_level=None)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA synchronous=FULL")
db.execute("CREATE TABLE IF NOT EXISTS skills (id TEXT PRIMARY KEY, owner TEXT, inputs TEXT)")
db.execute(
    "CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, skill_id TEXT, owner TEXT,"
    " inputs TEXT, state TEXT, created_at TEXT, environment TEXT)"
)
db.execute("INSERT OR REPLACE INTO skills VALUES ('skill_one_set', 'bench', '[\"n\"]')")
KEYS = {KEY: "bench"}
app = FastAPI()


class RunSkillRequest(BaseModel):
    skill_id: str
    inputs: Dict[str, Any] = {}
    name: Optional[str] = None


def owner_of(authorization: str = Header("")) -> str:
    owner = KEYS.get(authorization.removeprefix("Bearer "))
    if owner is None:
        raise HTTPException(status_code=401, detail="Invalid API key")
    return owner


def session(row) -> Dict[str, Any]:
    id_, skill_id, owner, inputs, state, created_at, environment = row
    return {
        "id": id_, "skill_id": skill_id, "owner": owner, "name": None,
        "inputs": json.loads(inputs), "state": state, "created_at": created_at,
        "start_time": None, "end_time": None, "environment": environment,
    }


@app.get("/v1/run/{run_id}")
def get_run(run_id: str, owner: str = Depends(owner_of)):
    row = db.execute("SELECT * FROM runs WHERE id = ? AND owner = ?", (run_id, owner)).fetchone()
    if row is None:
        raise HTTPException(status_code=404, detail="Run not found")
    return session(row)


@app.post("/v1/run/", status_code=201)
def start_run(request: RunSkillRequest, owner: str = Depends(owner_of)):
    skill = db.execute(
        "SELECT inputs FROM skills WHERE id = ? AND owner = ?", (request.skill_id, owner)
    ).fetchone()
    if skill is None:
        raise HTTPException(status_code=404, detail="Skill not found")
    row = (
        f"run_{uuid.uuid4()}", request.skill_id, owner, json.dumps(request.inputs), None,
        datetime.now(timezone.utc).isoformat(), "cloud",
    )
    db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)", row)
    return session(row)


if __name__ == "__main__":
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(2048)
    print(f"fastapi listening on http://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[listener])
