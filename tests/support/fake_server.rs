//! A test double of an OpenAI-compatible chat-completions server on the
//! loopback (127.0.0.1), for tests and benchmarks: a tokio `TcpListener`
//! with a small hand-written HTTP/1.1 responder (one request per
//! connection). A handler decides each reply: a good answer, any status
//! with `Retry-After`, a hang, or a dropped connection; optional latency is
//! injected before replying. It records every request and the most
//! requests it ever had in flight at once. `GET .../models` (the client's
//! preflight) goes to the handler too but is counted apart
//! ([`FakeServer::preflights`]), and so are title-mapping requests
//! ([`FakeServer::title_requests`]), so request counts stay those of sections.
//!
//! Not a production server: it exists so the LLM client can be tested
//! against real HTTP without a network or a paid model. Only the tests
//! (`tests/tests.rs`) and the benches include it (`#[path]`); the library
//! does not ship it.

use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct FakeRequest {
    /// 0-based arrival order.
    pub seq: usize,
    /// When it arrived, for checking waits between attempts.
    pub at: Instant,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Null` when it is not JSON).
    pub body: Value,
}

impl FakeRequest {
    /// A header value by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        let n = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == n)
            .map(|(_, v)| v.as_str())
    }

    /// The content of the last user message (the section or the repair request).
    pub fn last_user_message(&self) -> String {
        self.messages()
            .iter()
            .rev()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    /// The first user message (the section).
    pub fn section_message(&self) -> String {
        self.messages()
            .iter()
            .find(|m| m["role"] == "user")
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default()
            .to_string()
    }

    /// The ids of the pieces an extraction request packs, in order: the
    /// header lines inside its data fence (`===== 0004 [Breadcrumb]`).
    pub fn pack_ids(&self) -> Vec<String> {
        self.pack_pieces()
            .into_iter()
            .map(|(id, _, _)| id)
            .collect()
    }

    /// The pieces of an extraction request: `(id, heading, text)` of each
    /// header line inside the data fence and the lines up to the next.
    pub fn pack_pieces(&self) -> Vec<(String, String, String)> {
        let m = self.section_message();
        let Some(fence) = m
            .lines()
            .find_map(|l| l.split_once(" DATA START ").map(|(f, _)| f.to_string()))
        else {
            return Vec::new();
        };
        let mut out: Vec<(String, String, String)> = Vec::new();
        for l in m.lines() {
            match l.strip_prefix(&format!("{fence} ")) {
                Some(rest) if rest.starts_with("DATA ") => {}
                Some(rest) => {
                    let (id, heading) = rest.split_once(' ').unwrap_or((rest, ""));
                    out.push((id.to_string(), heading.to_string(), String::new()));
                }
                None => {
                    if let Some(last) = out.last_mut() {
                        if !last.2.is_empty() {
                            last.2.push('\n');
                        }
                        last.2.push_str(l);
                    }
                }
            }
        }
        out
    }

    /// The chat messages of the request body.
    pub fn messages(&self) -> Vec<Value> {
        self.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// What the server does with a request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with this `choices[0].message.content` and usage.
    Content {
        content: String,
        prompt_tokens: u64,
        completion_tokens: u64,
    },
    /// Any status, optional `Retry-After` header value, and a body.
    Status {
        status: u16,
        retry_after: Option<String>,
        body: String,
    },
    /// Never answers (until the client gives up).
    Hang,
    /// Streams `content` (when the request asks for a stream; else one
    /// body) in pieces of `piece` chars, one every `every`, and ends with
    /// `finish` (`stop`, or `length` for an answer cut at `max_tokens`).
    /// With `stall_after: Some(n)`, stops sending after n pieces and keeps
    /// the connection open: a stalled server.
    Stream {
        content: String,
        piece: usize,
        every: Duration,
        finish: String,
        stall_after: Option<usize>,
        prompt_tokens: u64,
    },
    /// Closes the connection without a response.
    Drop,
}

impl Reply {
    /// A 200 answer whose content is `v` serialised (10 prompt and 5
    /// completion tokens).
    pub fn json(v: &Value) -> Reply {
        Reply::Content {
            content: v.to_string(),
            prompt_tokens: 10,
            completion_tokens: 5,
        }
    }

    /// A 200 answer with this raw content (e.g. invalid JSON).
    pub fn content(s: &str) -> Reply {
        Reply::Content {
            content: s.to_string(),
            prompt_tokens: 10,
            completion_tokens: 5,
        }
    }

    /// A `GET /models` answer listing these model ids.
    pub fn models(ids: &[&str]) -> Reply {
        let data: Vec<Value> = ids
            .iter()
            .map(|id| json!({"id": id, "object": "model"}))
            .collect();
        Reply::status(200, &json!({"object": "list", "data": data}).to_string())
    }

    /// A streamed answer of `v`, 8 chars per event, one every `every`.
    pub fn slow(v: &Value, every: Duration) -> Reply {
        Reply::Stream {
            content: v.to_string(),
            piece: 8,
            every,
            finish: "stop".into(),
            stall_after: None,
            prompt_tokens: 10,
        }
    }

    /// An answer cut at `max_tokens`: the first `chars` chars of `v`,
    /// finish reason `length`.
    pub fn cut(v: &Value, chars: usize) -> Reply {
        Reply::Stream {
            content: v.to_string().chars().take(chars).collect(),
            piece: 8,
            every: Duration::ZERO,
            finish: "length".into(),
            stall_after: None,
            prompt_tokens: 10,
        }
    }

    /// A stream that sends `pieces` events of `v` and then nothing.
    pub fn stall(v: &Value, pieces: usize) -> Reply {
        Reply::Stream {
            content: v.to_string(),
            piece: 8,
            every: Duration::ZERO,
            finish: "stop".into(),
            stall_after: Some(pieces),
            prompt_tokens: 10,
        }
    }

    /// llama.cpp's `GET /props` with this context per slot and slot count.
    pub fn props(n_ctx: u64, slots: u64) -> Reply {
        Reply::status(
            200,
            &json!({"default_generation_settings": {"n_ctx": n_ctx}, "total_slots": slots})
                .to_string(),
        )
    }

    /// llama.cpp's `POST /tokenize`: one token per 4 chars of the content.
    pub fn tokenize(req: &FakeRequest) -> Reply {
        let n = req.body["content"]
            .as_str()
            .unwrap_or_default()
            .chars()
            .count()
            .div_ceil(4);
        Reply::status(200, &json!({"tokens": vec![1; n]}).to_string())
    }

    /// Any status with this body and no `Retry-After`.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Status {
            status,
            retry_after: None,
            body: body.to_string(),
        }
    }
}

impl Reply {
    /// An answer to every piece of an extraction request, each item made
    /// by `item(id, heading, text)` and given the piece's id.
    pub fn per_piece(req: &FakeRequest, item: impl Fn(&str, &str, &str) -> Value) -> Reply {
        let items: Vec<Value> = req
            .pack_pieces()
            .iter()
            .map(|(id, heading, text)| {
                let mut v = item(id, heading, text);
                v["id"] = json!(id);
                v
            })
            .collect();
        Reply::json(&json!({ "sections": items }))
    }

    /// A handler's answer to an extraction request of several pieces: a
    /// 200 whose content is one section's extraction (no `sections` list)
    /// is given for every piece of the pack, under its id, so a handler
    /// written for one section answers a pack the same way. Anything else
    /// (an error, a cut or pack-shaped answer, junk) is sent as is.
    fn for_pack(self, req: &FakeRequest) -> Reply {
        let ids = req.pack_ids();
        let wrap = |content: &str| -> Option<String> {
            let v: Value = serde_json::from_str(content).ok()?;
            if !v.is_object() || v.get("sections").is_some() || v.get("entities").is_none() {
                return None;
            }
            let items: Vec<Value> = ids
                .iter()
                .map(|id| {
                    let mut item = v.clone();
                    item["id"] = json!(id);
                    item
                })
                .collect();
            Some(json!({"sections": items}).to_string())
        };
        if ids.len() < 2 {
            return self;
        }
        match self {
            Reply::Content {
                content,
                prompt_tokens,
                completion_tokens,
            } => Reply::Content {
                content: wrap(&content).unwrap_or(content),
                prompt_tokens,
                completion_tokens,
            },
            Reply::Stream {
                content,
                piece,
                every,
                finish,
                stall_after,
                prompt_tokens,
            } if finish == "stop" => Reply::Stream {
                content: wrap(&content).unwrap_or(content),
                piece,
                every,
                finish,
                stall_after,
                prompt_tokens,
            },
            other => other,
        }
    }
}

/// A valid extraction: Acme Corp (Organization) has the role Borrower.
pub fn good_extraction() -> Value {
    json!({
        "entities": [
            {"name": "Acme Corp", "type": "Organization", "aliases": ["Acme"], "description": "the borrower"},
            {"name": "Borrower", "type": "Role", "aliases": [], "description": "party that borrows"}
        ],
        "relations": [
            {"source": "Acme Corp", "type": "HAS_ROLE", "target": "Borrower", "evidence": "Acme Corp (the \"Borrower\")"}
        ],
        "graphability": {"tier": "high", "why": "parties and roles"}
    })
}

type Handler = dyn Fn(&FakeRequest) -> Reply + Send + Sync;

#[derive(Default)]
struct Stats {
    requests: AtomicUsize,
    preflights: AtomicUsize,
    probes: AtomicUsize,
    titles: AtomicUsize,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    log: Mutex<Vec<FakeRequest>>,
    title_log: Mutex<Vec<FakeRequest>>,
}

/// The running server; stops accepting when dropped.
pub struct FakeServer {
    addr: SocketAddr,
    stats: Arc<Stats>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeServer {
    /// Starts on `127.0.0.1:<free port>`; every reply waits `latency` first.
    pub async fn start(
        latency: Duration,
        handler: impl Fn(&FakeRequest) -> Reply + Send + Sync + 'static,
    ) -> std::io::Result<FakeServer> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let stats = Arc::new(Stats::default());
        let handler: Arc<Handler> = Arc::new(handler);
        let st = stats.clone();
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let (st, h) = (st.clone(), handler.clone());
                tokio::spawn(async move {
                    let _ = serve(sock, st, h, latency).await;
                });
            }
        });
        Ok(FakeServer { addr, stats, task })
    }

    /// `http://127.0.0.1:<port>/v1`
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Section requests received so far.
    pub fn requests(&self) -> usize {
        self.stats.requests.load(Ordering::SeqCst)
    }

    /// Section pieces asked for so far, over every extraction request (a
    /// request packs one or more).
    pub fn pieces_received(&self) -> usize {
        self.received().iter().map(|r| r.pack_ids().len()).sum()
    }

    /// `GET .../models` requests (preflight checks) received so far.
    pub fn preflights(&self) -> usize {
        self.stats.preflights.load(Ordering::SeqCst)
    }

    /// `/props` and `/tokenize` requests (llama.cpp's server probes).
    pub fn probes(&self) -> usize {
        self.stats.probes.load(Ordering::SeqCst)
    }

    /// The most requests that were ever being handled at the same time.
    pub fn max_in_flight(&self) -> usize {
        self.stats.max_in_flight.load(Ordering::SeqCst)
    }

    /// Every request received, in arrival order (title mappings apart).
    pub fn received(&self) -> Vec<FakeRequest> {
        self.stats.log.lock().expect("log lock").clone()
    }

    /// Title-mapping requests received so far (not in [`Self::requests`]).
    pub fn title_requests(&self) -> usize {
        self.stats.titles.load(Ordering::SeqCst)
    }

    /// Every title-mapping request received, in arrival order.
    pub fn title_received(&self) -> Vec<FakeRequest> {
        self.stats.title_log.lock().expect("log lock").clone()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Decrements the in-flight count however the connection ends.
struct InFlight(Arc<Stats>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn read_request(
    sock: &mut TcpStream,
) -> std::io::Result<Option<(String, Vec<(String, String)>, Vec<u8>)>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.split("\r\n");
    let path = lines
        .next()
        .unwrap_or_default()
        .split(' ')
        .nth(1)
        .unwrap_or_default()
        .to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < len {
        let n = sock.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(Some((path, headers, body)))
}

async fn serve(
    mut sock: TcpStream,
    st: Arc<Stats>,
    handler: Arc<Handler>,
    latency: Duration,
) -> std::io::Result<()> {
    let Some((path, headers, body)) = read_request(&mut sock).await? else {
        return Ok(());
    };
    // Routed by the path without its query (an endpoint may carry `?code=`).
    let route = path.split('?').next().unwrap_or_default();
    let probe = route.ends_with("/props") || route.ends_with("/tokenize");
    if route.ends_with("/models") || probe {
        if probe {
            st.probes.fetch_add(1, Ordering::SeqCst);
        } else {
            st.preflights.fetch_add(1, Ordering::SeqCst);
        }
        let req = FakeRequest {
            seq: usize::MAX,
            at: Instant::now(),
            path,
            headers,
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        };
        let reply = handler(&req);
        return respond(sock, reply, &req, None).await;
    }
    let now = st.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    let _guard = InFlight(st.clone());
    st.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let req = if is_title_mapping(&body) {
        let mut log = st.title_log.lock().expect("log lock");
        let req = FakeRequest {
            seq: st.titles.fetch_add(1, Ordering::SeqCst),
            at: Instant::now(),
            path,
            headers,
            body,
        };
        log.push(req.clone());
        req
    } else {
        let mut log = st.log.lock().expect("log lock");
        let req = FakeRequest {
            seq: st.requests.fetch_add(1, Ordering::SeqCst),
            at: Instant::now(),
            path,
            headers,
            body,
        };
        log.push(req.clone());
        req
    };
    let reply = handler(&req).for_pack(&req);
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    respond(sock, reply, &req, Some(_guard)).await
}

/// True for a title-mapping request (its system message says so).
fn is_title_mapping(body: &Value) -> bool {
    body["messages"][0]["content"]
        .as_str()
        .is_some_and(|c| c.starts_with(kgroute::index::llm_titles::SYSTEM_INTRO))
}

/// Writes `reply` (or hangs, or drops the connection).
async fn respond(
    mut sock: TcpStream,
    reply: Reply,
    req: &FakeRequest,
    guard: Option<InFlight>,
) -> std::io::Result<()> {
    let streamed = req.body["stream"] == json!(true);
    let (status, extra, body) = match reply {
        Reply::Stream {
            content,
            piece,
            every,
            finish,
            stall_after,
            prompt_tokens,
        } => {
            let chars: Vec<char> = content.chars().collect();
            let pieces: Vec<String> = chars
                .chunks(piece.max(1))
                .map(|c| c.iter().collect())
                .collect();
            if !streamed {
                let b = completion(req, &content, &finish, prompt_tokens, pieces.len() as u64);
                drop(guard);
                return write_response(sock, 200, "", &b.to_string()).await;
            }
            return stream(
                sock,
                req,
                pieces,
                every,
                &finish,
                stall_after,
                prompt_tokens,
                guard,
            )
            .await;
        }
        Reply::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return Ok(());
        }
        Reply::Drop => {
            let _ = sock.shutdown().await;
            return Ok(());
        }
        Reply::Content {
            content,
            prompt_tokens,
            completion_tokens,
        } => {
            if streamed {
                // The whole answer in one event, then finish and usage.
                return stream_fixed(sock, req, &content, prompt_tokens, completion_tokens, guard)
                    .await;
            }
            let b = completion(req, &content, "stop", prompt_tokens, completion_tokens);
            (200, String::new(), b.to_string())
        }
        Reply::Status {
            status,
            retry_after,
            body,
        } => {
            let extra = retry_after
                .map(|r| format!("Retry-After: {r}\r\n"))
                .unwrap_or_default();
            (status, extra, body)
        }
    };
    // The request stops counting as in flight before its answer leaves:
    // the client may send its next request as soon as it reads this one,
    // and that must not be counted as overlapping.
    drop(guard);
    write_response(sock, status, &extra, &body).await
}

async fn write_response(
    mut sock: TcpStream,
    status: u16,
    extra: &str,
    body: &str,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n",
        reason(status),
        body.len()
    );
    sock.write_all(head.as_bytes()).await?;
    sock.write_all(body.as_bytes()).await?;
    sock.shutdown().await
}

/// A non-streamed chat-completions body.
fn completion(req: &FakeRequest, content: &str, finish: &str, pin: u64, pout: u64) -> Value {
    json!({
        "id": format!("fake-{}", req.seq),
        "object": "chat.completion",
        "model": req.body["model"],
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": pin, "completion_tokens": pout, "total_tokens": pin + pout}
    })
}

fn event(v: &Value) -> String {
    format!("data: {v}\n\n")
}

fn delta(content: &str) -> Value {
    json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]})
}

fn finish_events(finish: &str, pin: u64, pout: u64) -> String {
    event(
        &json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}),
    ) + &event(&json!({"object": "chat.completion.chunk", "choices": [],
            "usage": {"prompt_tokens": pin, "completion_tokens": pout, "total_tokens": pin + pout}}))
        + "data: [DONE]\n\n"
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";

async fn stream_fixed(
    mut sock: TcpStream,
    _req: &FakeRequest,
    content: &str,
    pin: u64,
    pout: u64,
    guard: Option<InFlight>,
) -> std::io::Result<()> {
    drop(guard);
    let body = event(&delta(content)) + &finish_events("stop", pin, pout);
    sock.write_all(SSE_HEAD.as_bytes()).await?;
    sock.write_all(body.as_bytes()).await?;
    sock.shutdown().await
}

#[allow(clippy::too_many_arguments)]
async fn stream(
    mut sock: TcpStream,
    _req: &FakeRequest,
    pieces: Vec<String>,
    every: Duration,
    finish: &str,
    stall_after: Option<usize>,
    pin: u64,
    guard: Option<InFlight>,
) -> std::io::Result<()> {
    sock.write_all(SSE_HEAD.as_bytes()).await?;
    let n = pieces.len() as u64;
    for (i, p) in pieces.into_iter().enumerate() {
        if stall_after == Some(i) {
            // Stalled: the connection stays open, nothing more comes.
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return Ok(());
        }
        if !every.is_zero() {
            tokio::time::sleep(every).await;
        }
        // A comment ping is not progress; send one before each token.
        sock.write_all(b": ping\n\n").await?;
        sock.write_all(event(&delta(&p)).as_bytes()).await?;
    }
    drop(guard);
    sock.write_all(finish_events(finish, pin, n).as_bytes())
        .await?;
    sock.shutdown().await
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}
