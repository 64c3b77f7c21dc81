-- The `artiscan audit` store: one SQLite file, schema version 5
-- (`PRAGMA user_version = 5`). artiscan creates it on first use and refuses a
-- file with a newer version; a future version adds a migration step from each
-- older one (see `src/audit/store/open.rs`, `MIGRATIONS`).
--
-- Keys: a file is identified by its path relative to the folder it was
-- found under, that folder's own name first (`runs/123/x.zip` whether
-- `runs`, `./runs` or `/data/runs` was audited; a listing's entries by
-- their object name), exactly as it appears in citations. Every
-- other table refers to it by `path`. Re-scanning an artifact deletes all of its
-- rows and writes the new ones in one transaction, so no reader ever sees half
-- of an artifact, and a killed audit leaves only whole artifacts behind.
--
-- Layouts: 1 the first; 2 added `evidence.text_start`; 3 stores each
-- member chain of an artifact once (`member_chains`) and keeps `evidence`,
-- `aggregates` and `coverage_errors` as views with their layout-2 columns
-- over `*_rows` tables that refer to a chain by id, so a store's size no
-- longer grows with a member name times its matching lines; 4 added
-- `artifacts.unit`, the artifact a file belongs to; 5 added
-- `artifacts.superseded_ns`, set when the file is gone.
--
-- JSON columns hold the same values as the fields of the scan's JSON Lines
-- records (see `src/output/records.rs`); query them with `json_extract` /
-- `json_each`. Booleans are 0/1. Times: `*_at` is ISO 8601 UTC text,
-- `*_ns` nanoseconds since the Unix epoch.

-- Key/value facts about the store: `fingerprint` (of the latest audit),
-- `tool_version`, `created_at`.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- What produced a row: one per pack/check-set fingerprint ever used. The
-- fingerprint is a hash of the artiscan version, the compiled packs' text
-- (`pack_fingerprint`), every check file's text, the `--param` values and the
-- read limits; when it changes, every artifact is scanned again.
CREATE TABLE fingerprints (
    fingerprint      TEXT PRIMARY KEY,
    tool_version     TEXT NOT NULL,
    pack_fingerprint TEXT NOT NULL,
    packs            TEXT NOT NULL,  -- JSON {pack: version}
    checks           TEXT NOT NULL,  -- JSON [{"file": name, "source": text}]: the check files, verbatim
    params           TEXT NOT NULL,  -- JSON {key: value} of --param
    every_match      INTEGER NOT NULL, -- 1 when a check needs every line of an aggregating rule
    limits           TEXT NOT NULL,  -- JSON of the read limits
    created_at       TEXT NOT NULL
);

-- One row per file audited: an artifact (zip, tarball, log file), or a file
-- of an extracted artifact folder (see `unit`).
CREATE TABLE artifacts (
    path          TEXT PRIMARY KEY,   -- as walked; the start of every citation
    artifact      TEXT NOT NULL,      -- file name
    run_dir       TEXT NOT NULL,      -- folder holding the artifact (`unit`): the scope of `scope = "run"` checks
    run_id        TEXT,               -- GitHub run id: --run-id, else the nearest numeric folder, else logs_<id>
    -- Fields parsed from the artifact name (or, for a plain file inside an
    -- unzipped artifact folder, from that folder's name); NULL when the name
    -- does not follow `<kind>_<exp>_<precision>_<framework>_tp<T>-pp<P>-dcp<D>-
    -- pcp<C>-ep<E>-dpa<bool>_disagg-<bool>_spec-<method>_conc<N>_<runner>`.
    kind          TEXT,               -- eval_server_logs, multinode_server_logs, server_logs, bmk_agentic, bmk, eval, logs
    eval_task     TEXT,               -- eval_<task>_<RF>: the task (gsm8k)
    exp           TEXT,
    precision     TEXT,
    framework     TEXT,
    tp            INTEGER,
    pp            INTEGER,
    dcp           INTEGER,
    pcp           INTEGER,
    ep            INTEGER,
    dpa           INTEGER,            -- dp-attention
    disagg        INTEGER,            -- disaggregated prefill/decode
    spec          TEXT,               -- speculative decoding method (mtp, none, ...)
    conc          INTEGER,
    runner        TEXT,               -- mi355x-amds_03, gb200-nv_01
    backup_n      INTEGER,            -- storage backup name <artifact>_<n>_<id>: n
    artifact_id   INTEGER,            -- ... and id
    size          INTEGER,            -- file bytes
    mtime_ns      INTEGER,            -- file modification time
    sha256        TEXT,               -- NULL when the file could not be read
    scanned_at    TEXT NOT NULL,      -- when this row's results were produced
    scanned_ns    INTEGER NOT NULL,
    hashed_ns     INTEGER NOT NULL,   -- when sha256 last matched the file (skip without re-hashing)
    scan_ms       INTEGER NOT NULL,   -- wall time of the scan
    tool_version  TEXT NOT NULL,
    pack_fingerprint TEXT NOT NULL,
    fingerprint   TEXT NOT NULL REFERENCES fingerprints(fingerprint),
    complete      INTEGER NOT NULL,   -- every member read to its end (no coverage error)
    evidence_count  INTEGER NOT NULL,
    aggregate_count INTEGER NOT NULL,
    -- The artifact the file belongs to, found as `check` finds it: the file
    -- itself (a zip, a tarball, a lone log), or the folder of an extracted
    -- artifact (`gh run download` makes one per artifact). Artifact-scope
    -- verdicts of a folder are judged over all its files (`verdicts.path`
    -- NULL, `scope_name` the folder); `run_dir` is the folder holding it.
    unit          TEXT,
    -- When an audit of the folder holding the file found it gone (deleted or
    -- moved): its rows are kept as history, but judging, reports and exports
    -- leave it out (`audit report --history` shows it). NULL: current.
    superseded_ns INTEGER
);
CREATE INDEX artifacts_run_id ON artifacts(run_id);
CREATE INDEX artifacts_run_dir ON artifacts(run_dir);
CREATE INDEX artifacts_config ON artifacts(exp, precision, framework, conc);
CREATE INDEX artifacts_sha256 ON artifacts(sha256);

-- What was read of each artifact (the scan's `coverage` record).
CREATE TABLE coverage (
    path        TEXT PRIMARY KEY,
    sha256      TEXT,
    complete    INTEGER NOT NULL,
    members     INTEGER NOT NULL,     -- leaf members opened
    bytes       INTEGER NOT NULL,     -- decompressed bytes read
    error_count INTEGER NOT NULL,
    notes       TEXT NOT NULL         -- JSON [{members, kind, message}]: skipped on purpose
);

-- Member chains: each distinct chain of members of an artifact, stored once
-- and referred to by id from the rows below, so that a long member name on
-- many matching lines costs its bytes once, not once per row (layout 3).
CREATE TABLE member_chains (
    path     TEXT NOT NULL,
    chain    INTEGER NOT NULL,        -- id within the artifact
    members  TEXT NOT NULL,           -- JSON array
    citation TEXT NOT NULL,           -- path!member!member: the citation's member part
    PRIMARY KEY (path, chain)
);

-- Parts of an artifact that could not be read: damaged, truncated, over a
-- limit. Query the `coverage_errors` view.
CREATE TABLE coverage_error_rows (
    path     TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    chain    INTEGER NOT NULL,        -- member_chains(path, chain): where it was noticed
    kind     TEXT NOT NULL,           -- truncated, corrupt, limit, unsupported, io
    message  TEXT NOT NULL,
    PRIMARY KEY (path, seq)
);
CREATE VIEW coverage_errors AS
SELECT e.path AS path, e.seq AS seq,
       c.citation AS citation,        -- path!member!member where it was noticed
       c.members AS members,          -- JSON array
       e.kind AS kind, e.message AS message
FROM coverage_error_rows e
LEFT JOIN member_chains c ON c.path = e.path AND c.chain = e.chain;

-- Evidence records: one per matching line (aggregating rules excepted).
-- Query the `evidence` view, which adds the citation and the members.
CREATE TABLE evidence_rows (
    path        TEXT NOT NULL,
    seq         INTEGER NOT NULL,     -- order within the artifact's scan output
    run_id      TEXT,                 -- copied from artifacts, for short queries
    artifact    TEXT NOT NULL,        -- copied from artifacts
    rule        TEXT NOT NULL,        -- env.var, sglang.monokernel_routing, ...
    pack        TEXT,
    chain       INTEGER NOT NULL,     -- member_chains(path, chain)
    line        INTEGER NOT NULL,
    byte_offset INTEGER NOT NULL,
    col         INTEGER,              -- 1-based byte column of the match
    text        TEXT NOT NULL,        -- the cleaned line
    lossy       INTEGER NOT NULL,
    truncated   INTEGER NOT NULL,
    captures    TEXT,                 -- JSON object of typed captures, e.g. {"name": "...", "value": "1"}
    rank        TEXT,                 -- JSON object, e.g. {"tp": 3, "ep": 3}
    id          TEXT,                 -- stable evidence id
    text_start  INTEGER,              -- set when text is an excerpt of a line over 1 KiB: its byte offset
    PRIMARY KEY (path, seq)
);
CREATE INDEX evidence_rule ON evidence_rows(rule);
-- "Which runs had variable X set": env.var by name.
CREATE INDEX evidence_env_name ON evidence_rows(json_extract(captures, '$.name')) WHERE rule = 'env.var';
-- The columns of layouts 1 and 2, in their order.
CREATE VIEW evidence AS
SELECT e.path AS path, e.seq AS seq, e.run_id AS run_id, e.artifact AS artifact,
       e.rule AS rule, e.pack AS pack,
       c.citation || ':' || e.line AS citation, -- path!member!member:line (artiscan cite reopens it)
       c.members AS members,          -- JSON array
       e.line AS line, e.byte_offset AS byte_offset, e.col AS col, e.text AS text,
       e.lossy AS lossy, e.truncated AS truncated, e.captures AS captures,
       e.rank AS rank, e.id AS id, e.text_start AS text_start
FROM evidence_rows e
LEFT JOIN member_chains c ON c.path = e.path AND c.chain = e.chain;

-- Aggregates of high-frequency rules (spec.accept_len): count and stats per
-- member and group. Query the `aggregates` view.
CREATE TABLE aggregate_rows (
    path        TEXT NOT NULL,
    seq         INTEGER NOT NULL,     -- shares the sequence of evidence
    run_id      TEXT,
    artifact    TEXT NOT NULL,
    rule        TEXT NOT NULL,
    pack        TEXT NOT NULL,
    chain       INTEGER NOT NULL,     -- member_chains(path, chain)
    group_key   TEXT NOT NULL,        -- JSON object: rank fields / captures grouped by
    count       INTEGER NOT NULL,
    stats       TEXT NOT NULL,        -- JSON {capture: {min, max, mean}}
    first_line  INTEGER NOT NULL,     -- the first matching line
    last_line   INTEGER NOT NULL,
    PRIMARY KEY (path, seq)
);
CREATE INDEX aggregates_rule ON aggregate_rows(rule);
CREATE VIEW aggregates AS
SELECT a.path AS path, a.seq AS seq, a.run_id AS run_id, a.artifact AS artifact,
       a.rule AS rule, a.pack AS pack,
       c.members AS members,          -- JSON array
       a.group_key AS group_key, a.count AS count, a.stats AS stats,
       c.citation || ':' || a.first_line AS first, -- citation of the first matching line
       c.citation || ':' || a.last_line AS last
FROM aggregate_rows a
LEFT JOIN member_chains c ON c.path = a.path AND c.chain = a.chain;

-- The stats of each aggregate, one row per numeric capture (exact doubles;
-- `aggregates.stats` holds the same as JSON).
CREATE TABLE aggregate_stats (
    path    TEXT NOT NULL,
    seq     INTEGER NOT NULL,         -- the aggregate's seq
    capture TEXT NOT NULL,            -- e.g. value, accept_rate
    min     REAL NOT NULL,
    max     REAL NOT NULL,
    mean    REAL NOT NULL,
    PRIMARY KEY (path, seq, capture)
);

-- The checks judged (id, what they claim), from the latest audit or merge.
CREATE TABLE checks (
    check_id    TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    rule        TEXT NOT NULL,
    scope       TEXT NOT NULL         -- artifact | run
);

-- Verdicts: one per check and artifact (scope 'artifact'; path NULL where
-- the artifact is a folder of files, `artifacts.unit`), or per check and
-- run folder (scope 'run', path NULL).
CREATE TABLE verdicts (
    check_id       TEXT NOT NULL,
    scope          TEXT NOT NULL,     -- artifact | run
    scope_name     TEXT NOT NULL,     -- the artifact (file or folder) or the run folder
    path           TEXT,              -- the artifact's file; NULL for a folder and for scope 'run'
    artifact       TEXT,              -- file or folder name, NULL for scope 'run'
    run_dir        TEXT NOT NULL,
    run_id         TEXT,
    rule           TEXT NOT NULL,
    status         TEXT NOT NULL,     -- pass | fail | unknown
    reason         TEXT NOT NULL,
    evidence       TEXT NOT NULL,     -- JSON array of citations (at most 20)
    first_citation TEXT,
    missing        TEXT NOT NULL,     -- JSON: ranks not seen, members not read
    PRIMARY KEY (check_id, scope_name)
);
CREATE INDEX verdicts_status ON verdicts(check_id, status);
CREATE INDEX verdicts_path ON verdicts(path);
CREATE INDEX verdicts_run ON verdicts(run_id);
CREATE INDEX verdicts_run_dir ON verdicts(run_dir);

-- Run folders whose `scope = "run"` verdicts must be judged again (an
-- artifact in them changed); cleared once they are.
CREATE TABLE dirty_runs (
    run_dir TEXT PRIMARY KEY
);
