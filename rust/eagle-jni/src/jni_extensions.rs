//! The JNI entry points of the configuration (the engine's key table, and a configuration
//! checked without an engine) and of the policies beyond Eagle: LoTES placement and
//! Eirene's SATC, `@native` methods of `org.apache.spark.scheduler.eagle.Native`
//! with the conventions of `jni_api` (a handle is a registry key, primitives only, every body
//! inside `catch_unwind`, errors and panics thrown as `EagleNativeException`). LoTES's
//! bookkeeping is eagle-client's ([`eagle_client::application::lotes`]); the Eirene calls'
//! arguments are decoded by the safe [`crate::eirene`].

use crate::convert;
use crate::jni_api::{ints_in, ints_out, longs_in, utf8_in, with_state, Res, ThrowEagle};
use eagle_client::application::lotes;
use jni::objects::{JByteArray, JDoubleArray, JIntArray, JLongArray, JObject};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};

fn doubles_in(env: &Env<'_>, a: &JDoubleArray<'_>) -> Res<Vec<f64>> {
    let n = a.len(env)?;
    let mut v = vec![0f64; n];
    a.get_region(env, 0, &mut v)?;
    Ok(v)
}

/// `configKeys(): Array[Byte]` — the engine's keys as UTF-8 JSON
/// ([`eagle_core::settings::keys_json`]): name, default, type, range and meaning of each.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_configKeys<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
) -> JByteArray<'l> {
    env.with_env(|env| -> Res<JByteArray<'l>> {
        Ok(env.byte_array_from_slice(eagle_core::settings::keys_json().as_bytes())?)
    })
    .resolve_with::<ThrowEagle, _>(|| "configKeys")
}

/// `configCheck(config: Array[Byte]): Array[Byte]` — decodes and validates a configuration
/// as `create` does, without creating an engine; returns every engine key's value in force
/// as UTF-8 JSON (the run summary's `config`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_configCheck<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    config: JByteArray<'l>,
) -> JByteArray<'l> {
    env.with_env(|env| -> Res<JByteArray<'l>> {
        let settings = convert::decode_settings(&utf8_in(env, &config, "config")?)?;
        Ok(env.byte_array_from_slice(settings.to_json().to_string().as_bytes())?)
    })
    .resolve_with::<ThrowEagle, _>(|| "configCheck")
}

/// `lotesExecutor(handle, node, capacity: Array[Double]): Unit` — `placement=lotes`: the
/// executor behind `node` has `capacity` = `[cores, memoryMiB, custom…]`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_lotesExecutor<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    node: jint,
    capacity: JDoubleArray<'l>,
) {
    env.with_env(|env| -> Res<()> {
        let node = convert::node_id(node)?;
        let cap = doubles_in(env, &capacity)?;
        with_state(h, |st| Ok(lotes::add_executor(st, node, &cap)?))
    })
    .resolve_with::<ThrowEagle, _>(|| "lotesExecutor")
}

/// `lotesTaskSet(handle, job, demand: Array[Double], tasks): Unit` — `placement=lotes`:
/// each task of the submitted `job` asks `demand` (same layout as the executors').
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_lotesTaskSet<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    job: jint,
    demand: JDoubleArray<'l>,
    tasks: jint,
) {
    env.with_env(|env| -> Res<()> {
        let job = convert::job_id(job)?;
        let tasks = convert::count("tasks", tasks)?;
        let d = doubles_in(env, &demand)?;
        with_state(h, |st| Ok(lotes::add_task_set(st, job, &d, tasks)?))
    })
    .resolve_with::<ThrowEagle, _>(|| "lotesTaskSet")
}

/// `lotesExclude(handle, node, free: Array[Double]): Array[Int]` — `placement=lotes`: the
/// jobs LoTES keeps off this offer of executor `node` (free resources `free`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_lotesExclude<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    node: jint,
    free: JDoubleArray<'l>,
) -> JIntArray<'l> {
    env.with_env(|env| -> Res<JIntArray<'l>> {
        let node = convert::node_id(node)?;
        let f = doubles_in(env, &free)?;
        let jobs: Vec<i32> =
            with_state(h, |st| Ok(lotes::exclude(st, node, &f)?.iter().map(|j| j.0 as i32).collect()))?;
        ints_out(env, &jobs)
    })
    .resolve_with::<ThrowEagle, _>(|| "lotesExclude")
}

/// `enableSatc(handle): Unit` — turns on Eirene's Scheduler-Aware Task Cloning.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_enableSatc<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
) {
    env.with_env(|_env| -> Res<()> {
        with_state(h, |st| {
            st.driver.enable_satc();
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "enableSatc")
}

/// `satcClone(handle, job, waiting, idle, running): Int` — the task index of `job` to
/// clone now (Spark's speculative path), or -1; see [`crate::eirene::satc_clone`].
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_satcClone<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    job: jint,
    waiting: jint,
    idle: jint,
    running: JIntArray<'l>,
) -> jint {
    env.with_env(|env| -> Res<jint> {
        let running = ints_in(env, &running)?;
        with_state(h, |st| Ok(crate::eirene::satc_clone(st, job, waiting, idle, &running)?))
    })
    .resolve_with::<ThrowEagle, _>(|| "satcClone")
}

/// `preempt(handle, nowMs, jobs, startedMs, preempted, killing): Int` — of the attempts
/// running now (parallel arrays: job, start in engine ms, whether the task was preempted
/// before, 0 or 1), the index of the one to kill for a short job that waited past
/// `preempt.afterMs`, or -1; `killing`: kills decided before whose attempts have not ended.
/// See [`eagle_core::adaptive::preempt`].
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_preempt<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    jobs: JIntArray<'l>,
    started_ms: JLongArray<'l>,
    preempted: JIntArray<'l>,
    killing: jint,
) -> jint {
    env.with_env(|env| -> Res<jint> {
        let attempts =
            convert::attempts(&ints_in(env, &jobs)?, &longs_in(env, &started_ms)?, &ints_in(env, &preempted)?)?;
        let killing = convert::count("killing", killing)?;
        with_state(h, |st| Ok(st.driver.preempt(convert::ms_to_s(now_ms), &attempts, killing).map_or(-1, |i| i as i32)))
    })
    .resolve_with::<ThrowEagle, _>(|| "preempt")
}

/// `ccdm(handle, op, args: Array[Int]): Array[Int]` — one call into Eirene's Coordinated
/// Cold Data Migration planner; the operations and their layouts are in
/// [`crate::eirene::op`].
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_ccdm<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    op: jint,
    args: JIntArray<'l>,
) -> JIntArray<'l> {
    env.with_env(|env| -> Res<JIntArray<'l>> {
        let a = ints_in(env, &args)?;
        let out = with_state(h, |st| Ok(crate::eirene::ccdm(st, op, &a)?))?;
        ints_out(env, &out)
    })
    .resolve_with::<ThrowEagle, _>(|| "ccdm")
}
