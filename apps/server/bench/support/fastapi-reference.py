# The FastAPI reference of the API benchmark: the origin's stack (FastAPI, pydantic, uvicorn) serving
# the two operations measured, GET /v1/run/{id} and POST /v1/run/, over the database the server
# beside it uses: a SQLite file (WAL, synchronous FULL, a commit per POST, as Skillrun keeps it), or
# PostgreSQL through psycopg2 (Debian's python3-psycopg2) with SQLAlchemy's default of at most 15
# connections, a commit per POST. A bearer key is checked against a table read once.
# `python3 fastapi-reference.py <database file | postgres:// URL> <key>`; prints "fastapi listening on
# <address>".
import json
import socket
import sqlite3
import sys
import threading
import uuid
from datetime import datetime, timezone
from typing import Any, Dict, Optional

import uvicorn
from fastapi import Depends, FastAPI, Header, HTTPException
from pydantic import BaseModel

DATABASE, KEY = sys.argv[1], sys.argv[2]
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS skills (id TEXT PRIMARY KEY, owner TEXT, inputs TEXT)",
    "CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, skill_id TEXT, owner TEXT,"
    " inputs TEXT, state TEXT, created_at TEXT, environment TEXT)",
]
SKILL = ("skill_one_set", "bench", '["n"]')

if DATABASE.startswith(("postgres://", "postgresql://")):
    import psycopg2.pool

    # uvicorn runs each request on one of 40 threads; the pool refuses a 16th at once where
    # SQLAlchemy's would wait, so the threads wait for a connection here.
    pool = psycopg2.pool.ThreadedConnectionPool(1, 15, DATABASE)
    free = threading.BoundedSemaphore(15)

    def query(sql: str, params: tuple = ()) -> Optional[tuple]:
        with free:
            conn = pool.getconn()
            try:
                with conn, conn.cursor() as cursor:  # one transaction, committed on leaving
                    cursor.execute(sql.replace("?", "%s"), params)
                    return cursor.fetchone() if cursor.description else None
            finally:
                pool.putconn(conn)

    for statement in SCHEMA:
        query(statement)
    query("INSERT INTO skills VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING", SKILL)
else:
    db = sqlite3.connect(DATABASE, check_same_thread=False, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")

    def query(sql: str, params: tuple = ()) -> Optional[tuple]:
        return db.execute(sql, params).fetchone()

    for statement in SCHEMA:
        query(statement)
    query("INSERT OR REPLACE INTO skills VALUES (?, ?, ?)", SKILL)

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
    row = query("SELECT * FROM runs WHERE id = ? AND owner = ?", (run_id, owner))
    if row is None:
        raise HTTPException(status_code=404, detail="Run not found")
    return session(row)


@app.post("/v1/run/", status_code=201)
def start_run(request: RunSkillRequest, owner: str = Depends(owner_of)):
    skill = query("SELECT inputs FROM skills WHERE id = ? AND owner = ?", (request.skill_id, owner))
    if skill is None:
        raise HTTPException(status_code=404, detail="Skill not found")
    row = (
        f"run_{uuid.uuid4()}", request.skill_id, owner, json.dumps(request.inputs), None,
        datetime.now(timezone.utc).isoformat(), "cloud",
    )
    query("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)", row)
    return session(row)


if __name__ == "__main__":
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(2048)
    print(f"fastapi listening on http://127.0.0.1:{listener.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[listener])
