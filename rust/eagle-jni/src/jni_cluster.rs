//! The JNI entry points of cluster mode: `@native` methods of
//! `org.apache.spark.scheduler.eagle.Native`, with the conventions of `jni_api` (a handle
//! is a registry key, primitives only, every body inside `catch_unwind`, errors and panics
//! thrown as `EagleNativeException`). The logic is eagle-client's
//! ([`eagle_client::application::cluster`], [`eagle_client::grants`]).

use crate::error::Error;
use crate::jni_api::{ints_in, ints_out, longs_in, longs_out, with_state, BridgeError, Res, ThrowEagle, ENGINES};
use crate::{convert, layout};
use eagle_client::application::cluster;
use jni::objects::{JByteArray, JIntArray, JLongArray, JObject};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned};
use std::time::Duration;

fn utf8(env: &Env<'_>, a: &JByteArray<'_>, what: &'static str) -> Res<String> {
    let bytes = env.convert_byte_array(a)?;
    String::from_utf8(bytes).map_err(|_| BridgeError::from(Error::NotUtf8(what)))
}

/// `clusterStart(handle, central: Array[Byte], nodePort, secret: Array[Byte], app:
/// Array[Byte], pingMs, warmGrants: Boolean, affinity: Boolean): Unit` — cluster mode on: the driver links to
/// `central` and, per executor host, to `host:nodePort`; strings are UTF-8.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_clusterStart<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    central: JByteArray<'l>,
    node_port: jint,
    secret: JByteArray<'l>,
    app: JByteArray<'l>,
    ping_ms: jlong,
    warm_grants: jboolean,
    affinity: jboolean,
) {
    env.with_env(|env| -> Res<()> {
        let central = utf8(env, &central, "cluster.central")?;
        let secret = env.convert_byte_array(&secret)?;
        let app = utf8(env, &app, "the application id")?;
        with_state(h, |st| {
            let (node_port, ping_ms) = (convert::node_port(node_port)?, convert::ping_ms(ping_ms)?);
            let p = cluster::params(st, central, node_port, secret, app, ping_ms, warm_grants, affinity);
            Ok(cluster::start(st, p)?)
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "clusterStart")
}

/// `executorHost(handle, node, host: Array[Byte]): Unit` — executor `node` runs on `host`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_executorHost<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    node: jint,
    host: JByteArray<'l>,
) {
    env.with_env(|env| -> Res<()> {
        let node = convert::node_id(node)?;
        let host = utf8(env, &host, "the executor host")?;
        with_state(h, |st| Ok(cluster::executor_host(st, node, &host)?))
    })
    .resolve_with::<ThrowEagle, _>(|| "executorHost")
}

/// `roundEnd(handle, nowMs, tids: Array[Long], nodes: Array[Int], jobs: Array[Int]): Unit`
/// — the launches of the offer round that just ended (no-op outside cluster mode).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_roundEnd<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    tids: JLongArray<'l>,
    nodes: JIntArray<'l>,
    jobs: JIntArray<'l>,
) {
    env.with_env(|env| -> Res<()> {
        let (tids, nodes, jobs) = (longs_in(env, &tids)?, ints_in(env, &nodes)?, ints_in(env, &jobs)?);
        with_state(h, |st| {
            convert::round_lengths(&tids, &nodes, &jobs)?;
            // Only cluster mode reads the launches: outside it they are not decoded.
            if st.cluster.is_some() {
                let launched = convert::launches(&tids, &nodes, &jobs)?;
                cluster::round_end(st, convert::ms_to_s(now_ms), &launched);
            }
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "roundEnd")
}

/// `taskEnded(handle, tid): Unit` — Spark task `tid` reached a final state (no-op outside
/// cluster mode, and for a task launched without a grant).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_taskEnded<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    tid: jlong,
) {
    env.with_env(|_env| -> Res<()> {
        with_state(h, |st| {
            cluster::task_ended(st, tid);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "taskEnded")
}

/// `awaitGrants(handle, seen, timeoutMs): Long` — blocks, without the engine's lock, until
/// more than `seen` grants have arrived or `timeoutMs` passes; returns the grants so far,
/// or -1 outside cluster mode or once the engine is closed.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_awaitGrants<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    seen: jlong,
    timeout_ms: jlong,
) -> jlong {
    env.with_env(|_env| -> Res<jlong> {
        let inbox = match ENGINES.with(h, |st| st.cluster.as_ref().map(|c| c.inbox())) {
            Ok(Some(i)) => i,
            Ok(None) | Err(_) => return Ok(-1),
        };
        let timeout = Duration::from_millis(timeout_ms.clamp(0, 60_000) as u64);
        Ok(inbox.wait(seen.max(0) as u64, timeout).map_or(-1, |n| n.min(i64::MAX as u64) as jlong))
    })
    .resolve_with::<ThrowEagle, _>(|| "awaitGrants")
}

/// `clusterOutOfReach(handle, job): Array[Int]` — the executors (engine nodes) where long
/// task set `job` cannot get a slot while the central places it (those on its short-only
/// hosts), so Spark's delay scheduling should not hold its tasks for them; empty for any
/// other task set and outside cluster mode.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_clusterOutOfReach<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    job: jint,
) -> JIntArray<'l> {
    env.with_env(|env| -> Res<JIntArray<'l>> {
        let job = convert::job_id(job)?;
        let v = with_state(h, |st| Ok(convert::node_codes(&cluster::out_of_reach(st, job))))?;
        ints_out(env, &v)
    })
    .resolve_with::<ThrowEagle, _>(|| "clusterOutOfReach")
}

/// `clusterStatus(handle): Array[Long]` — layout in [`layout::CLUSTER_STATUS_NAMES`]; empty
/// outside cluster mode.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_clusterStatus<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
) -> JLongArray<'l> {
    env.with_env(|env| -> Res<JLongArray<'l>> {
        let v = with_state(h, |st| Ok(layout::cluster_status(st)))?;
        longs_out(env, &v)
    })
    .resolve_with::<ThrowEagle, _>(|| "clusterStatus")
}
