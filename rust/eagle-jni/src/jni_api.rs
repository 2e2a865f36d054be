//! The JNI boundary: every `extern "system"` entry point of `libeagle_jni`, and the
//! only `unsafe` code of the project.
//!
//! Each function implements one `@native` method of the Scala class
//! `org.apache.spark.scheduler.eagle.Native` (instance methods, hence the unused
//! `this`). Conventions:
//! - The handle is a key of the process-wide [`handle::Registry`] of engines, not a
//!   pointer: `create` registers an [`Application`], `destroy` removes it once the call in progress
//!   (if any) is done. Any JVM thread may call at any time, even during or after
//!   `destroy`: a call that finds the engine gone throws
//!   `EagleEngineClosedException`, never touches freed memory.
//! - Arguments and results are primitives and primitive arrays only. Arrays are
//!   copied in and out (`get_region`/`set_region`); native code keeps no JVM
//!   reference and never calls back into Java.
//! - Times arrive as milliseconds (`long`) and are converted to the engine's
//!   seconds here.
//! - Every body runs in `EnvUnowned::with_env`, which wraps it in `catch_unwind`.
//!   Errors and panics are resolved by [`ThrowEagle`], which throws
//!   `org.apache.spark.scheduler.eagle.EagleNativeException` (or
//!   `java.lang.IllegalStateException` if that class cannot be found) and returns
//!   a default value: nothing unwinds into the JVM.

use crate::convert;
use crate::error::{Error, Expect};
use crate::handle::{HandleError, Registry};
use crate::layout;
use eagle_client::{history, Application, ApplicationError, ClusterError, HistoryError, TaskSet};
use jni::errors::ErrorPolicy;
use jni::objects::{JByteArray, JDoubleArray, JIntArray, JLongArray, JObject};
use jni::strings::JNIString;
use jni::sys::{jboolean, jdouble, jint, jlong};
use jni::{jni_str, Env, EnvUnowned};
use std::fmt;
use std::path::PathBuf;
use std::sync::LazyLock;

/// Every live engine of this process, by handle.
pub(crate) static ENGINES: LazyLock<Registry<Application>> = LazyLock::new(Registry::default);

/// An error raised by a bridge call: a JNI failure, a bad argument or an engine error, or
/// a handle that names no live engine.
#[derive(Debug)]
pub(crate) enum BridgeError {
    Jni(jni::errors::Error),
    Call(Error),
    Handle(HandleError),
}

impl From<jni::errors::Error> for BridgeError {
    fn from(e: jni::errors::Error) -> Self {
        BridgeError::Jni(e)
    }
}

/// `?` on a call's error (the crate's [`Error`] or one it wraps) inside an entry point.
macro_rules! call_error_from {
    ($($t:ty),*) => {$(
        impl From<$t> for BridgeError {
            fn from(e: $t) -> Self {
                BridgeError::Call(e.into())
            }
        }
    )*};
}

call_error_from!(Error, eagle_core::ConfigError, ApplicationError, HistoryError, ClusterError);

impl fmt::Display for BridgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BridgeError::Jni(e) => write!(f, "JNI error: {e}"),
            BridgeError::Call(e) => write!(f, "{e}"),
            BridgeError::Handle(e) => write!(f, "{e}"),
        }
    }
}

pub(crate) type Res<T> = Result<T, BridgeError>;

/// Throws `EagleNativeException(msg)` (`EagleEngineClosedException` when `closed`) unless
/// an exception is already pending.
fn throw(env: &mut Env<'_>, closed: bool, msg: String) {
    if env.exception_check() {
        return; // e.g. ArrayIndexOutOfBoundsException raised by a region copy
    }
    let class = if closed {
        jni_str!("org/apache/spark/scheduler/eagle/EagleEngineClosedException")
    } else {
        jni_str!("org/apache/spark/scheduler/eagle/EagleNativeException")
    };
    let found = env.find_class(class).is_ok();
    let msg = JNIString::from(msg);
    if found {
        let _ = env.throw_new(class, &msg);
    } else {
        env.exception_clear();
        let _ = env.throw_new(jni_str!("java/lang/IllegalStateException"), &msg);
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

/// Error policy of every entry point: a Java exception naming the method, and the
/// type's default value (0, or a null array) as the return value.
pub(crate) struct ThrowEagle;

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowEagle {
    /// The Java method name, for the exception message.
    type Captures<'unowned_env_local: 'native_method, 'native_method> = &'static str;

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        method: &mut &'static str,
        err: BridgeError,
    ) -> jni::errors::Result<T> {
        let closed = matches!(&err, BridgeError::Handle(e) if e.is_closed());
        throw(env, closed, format!("eagle-jni {method}: {err}"));
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        method: &mut &'static str,
        payload: Box<dyn std::any::Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let msg = panic_message(payload.as_ref());
        // Dropping a payload can itself panic; leak it instead.
        std::mem::forget(payload);
        throw(env, false, format!("eagle-jni {method}: panic: {msg}"));
        Ok(T::default())
    }
}

/// Runs `f` on the locked state of `h`, counting the call for the test hook.
pub(crate) fn with_state<T>(h: jlong, f: impl FnOnce(&mut Application) -> Res<T>) -> Res<T> {
    ENGINES
        .with(h, |st| {
            st.tick();
            f(st)
        })
        .map_err(BridgeError::Handle)?
}

pub(crate) fn ints_in(env: &Env<'_>, a: &JIntArray<'_>) -> Res<Vec<i32>> {
    let n = a.len(env)?;
    let mut v = vec![0i32; n];
    a.get_region(env, 0, &mut v)?;
    Ok(v)
}

/// An `Array[Int]` of engine node ids, each checked.
fn nodes_in(env: &Env<'_>, a: &JIntArray<'_>) -> Res<Vec<eagle_core::NodeId>> {
    Ok(ints_in(env, a)?.into_iter().map(convert::node_id).collect::<Result<Vec<_>, _>>()?)
}

pub(crate) fn longs_in(env: &Env<'_>, a: &JLongArray<'_>) -> Res<Vec<i64>> {
    let n = a.len(env)?;
    let mut v = vec![0i64; n];
    a.get_region(env, 0, &mut v)?;
    Ok(v)
}

pub(crate) fn ints_out<'l>(env: &mut Env<'l>, v: &[i32]) -> Res<JIntArray<'l>> {
    let a = JIntArray::new(env, v.len())?;
    a.set_region(env, 0, v)?;
    Ok(a)
}

pub(crate) fn longs_out<'l>(env: &mut Env<'l>, v: &[i64]) -> Res<JLongArray<'l>> {
    let a = JLongArray::new(env, v.len())?;
    a.set_region(env, 0, v)?;
    Ok(a)
}

fn doubles_out<'l>(env: &mut Env<'l>, v: &[f64]) -> Res<JDoubleArray<'l>> {
    let a = JDoubleArray::new(env, v.len())?;
    a.set_region(env, 0, v)?;
    Ok(a)
}

pub(crate) fn utf8_in(env: &Env<'_>, a: &JByteArray<'_>, what: &'static str) -> Res<String> {
    let bytes = env.convert_byte_array(a)?;
    Ok(String::from_utf8(bytes).map_err(|_| Error::NotUtf8(what))?)
}

fn path_in(env: &Env<'_>, a: &JByteArray<'_>) -> Res<PathBuf> {
    Ok(PathBuf::from(utf8_in(env, a, "path")?))
}

/// `create(config: Array[Byte]): Long` — a new engine from its configuration, UTF-8 JSON:
/// an object of `spark.scheduler.eagle.*`-relative keys to their string values (see
/// [`convert::decode_settings`]).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_create<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    config: JByteArray<'l>,
) -> jlong {
    env.with_env(|env| -> Res<jlong> {
        let st = Application::new(convert::decode_settings(&utf8_in(env, &config, "config")?)?)?;
        Ok(ENGINES.insert(st))
    })
    .resolve_with::<ThrowEagle, _>(|| "create")
}

/// `destroy(handle: Long): Unit` — frees the engine once the call in progress on it (if
/// any) returns; later calls get `EagleEngineClosedException`. Idempotent.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_destroy<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
) {
    env.with_env(|_env| -> Res<()> {
        ENGINES.destroy(h);
        Ok(())
    })
    .resolve_with::<ThrowEagle, _>(|| "destroy")
}

/// `addNode(handle, nowMs, slots): Int` — a new executor; returns its node id.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_addNode<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    slots: jint,
) -> jint {
    env.with_env(|_env| -> Res<jint> {
        let slots = convert::count("slots", slots)?;
        with_state(h, |st| Ok(st.driver.add_node(convert::ms_to_s(now_ms), slots).0 as jint))
    })
    .resolve_with::<ThrowEagle, _>(|| "addNode")
}

/// `removeNode(handle, nowMs, node): Unit` — the executor is gone.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_removeNode<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    node: jint,
) {
    env.with_env(|_env| -> Res<()> {
        let node = convert::node_id(node)?;
        with_state(h, |st| {
            st.remove_node(convert::ms_to_s(now_ms), node);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "removeNode")
}

/// `submit(handle, nowMs, tasks, hintClass, hintEstimateMs, signature, group, width, cpus,
/// barrier, inputNodes): Int` — a task set arrives; hintClass is -1 (none), 0 (short) or 1
/// (long); hintEstimateMs < 0 is none; group (the Spark job or SQL execution, for
/// query-aware SRPT) < 0 is none; `tasks` counts engine slots, `width` of them per task (a
/// task of a wider resource profile), and a task takes `cpus` cores (cluster mode: slots of
/// its host's node); `barrier`: a barrier stage (cluster mode gathers a grant for each of
/// its tasks before any launches, [`eagle_client::ClusterSide::set_gang`]); `inputNodes`: the
/// nodes holding input of its tasks, `width` entries a task per node, empty for none (warm
/// executors weigh data locality, see eagle-core's `warmup`; in cluster mode a long task
/// set's placements go near it). Returns the engine's job id.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_submit<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    tasks: jint,
    hint_class: jint,
    hint_estimate_ms: jlong,
    signature: jlong,
    group: jlong,
    width: jint,
    cpus: jint,
    barrier: jboolean,
    input_nodes: JIntArray<'l>,
) -> jint {
    env.with_env(|env| -> Res<jint> {
        let t = TaskSet {
            tasks: convert::count("tasks", tasks)?,
            width: convert::count("width", width)?.max(1),
            cpus: convert::count("cpus", cpus)?.max(1),
            class: convert::class_from_code(hint_class)?,
            estimate: (hint_estimate_ms >= 0).then(|| convert::ms_to_s(hint_estimate_ms)),
            signature: signature as u64,
            group: u64::try_from(group).ok(),
            barrier,
            input: nodes_in(env, &input_nodes)?,
        };
        with_state(h, |st| Ok(st.submit(convert::ms_to_s(now_ms), &t).0 as jint))
    })
    .resolve_with::<ThrowEagle, _>(|| "submit")
}

/// `setPending(handle, nowMs, job, pending, speculatable): Unit` — Spark's count of the job's
/// tasks waiting to launch, and of its running tasks waiting for a speculative copy.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_setPending<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    job: jint,
    pending: jint,
    speculatable: jint,
) {
    env.with_env(|_env| -> Res<()> {
        let job = convert::job_id(job)?;
        let pending = convert::count("pending", pending)?;
        let speculatable = convert::count("speculatable", speculatable)?;
        with_state(h, |st| {
            st.set_pending(convert::ms_to_s(now_ms), job, pending, speculatable);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "setPending")
}

/// `restrict(handle, nowMs, job, restricted, nodes): Unit` — Spark lets `job` run only on
/// `nodes` (`restricted` = 1), or anywhere (`restricted` = 0, `nodes` ignored).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_restrict<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    job: jint,
    restricted: jint,
    nodes: JIntArray<'l>,
) {
    env.with_env(|env| -> Res<()> {
        let job = convert::job_id(job)?;
        let nodes = nodes_in(env, &nodes)?;
        with_state(h, |st| {
            let usable = if restricted != 0 { Some(nodes.as_slice()) } else { None };
            st.restrict(convert::ms_to_s(now_ms), job, usable);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "restrict")
}

/// `busySlots(handle): Long` — slots the engine counts taken (planned or running). Read-only.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_busySlots<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
) -> jlong {
    env.with_env(|_env| -> Res<jlong> { with_state(h, |st| Ok(st.driver.busy_slots().min(i64::MAX as u64) as jlong)) })
        .resolve_with::<ThrowEagle, _>(|| "busySlots")
}

/// `offer(handle, nowMs, node, free, exclude): Array[Int]` — the plan for `free`
/// slots of `node`: one job id per launch, in order; never a job of `exclude`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_offer<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    node: jint,
    free: jint,
    exclude: JIntArray<'l>,
) -> JIntArray<'l> {
    env.with_env(|env| -> Res<JIntArray<'l>> {
        let node = convert::node_id(node)?;
        let free = convert::count("free", free)?;
        let exclude = ints_in(env, &exclude)?.into_iter().map(convert::job_id).collect::<Result<Vec<_>, _>>()?;
        let plan: Vec<i32> = with_state(h, |st| {
            Ok(st.offer(convert::ms_to_s(now_ms), node, free, &exclude).iter().map(|j| j.0 as i32).collect())
        })?;
        ints_out(env, &plan)
    })
    .resolve_with::<ThrowEagle, _>(|| "offer")
}

/// `decline(handle, nowMs, node, job): Unit` — a planned launch did not happen.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_decline<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    node: jint,
    job: jint,
) {
    env.with_env(|_env| -> Res<()> {
        let node = convert::node_id(node)?;
        let job = convert::job_id(job)?;
        with_state(h, |st| {
            st.decline(convert::ms_to_s(now_ms), node, job);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "decline")
}

/// `taskFinished(handle, nowMs, node, job, durationMs): Unit` — durationMs < 0 means the task failed.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_taskFinished<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    node: jint,
    job: jint,
    duration_ms: jlong,
) {
    env.with_env(|_env| -> Res<()> {
        let node = convert::node_id(node)?;
        let job = convert::job_id(job)?;
        let duration = (duration_ms >= 0).then(|| convert::ms_to_s(duration_ms));
        with_state(h, |st| {
            st.hold()?;
            st.task_finished(convert::ms_to_s(now_ms), node, job, duration);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "taskFinished")
}

/// `removeJob(handle, nowMs, job): Unit` — the task set is gone.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_removeJob<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    job: jint,
) {
    env.with_env(|_env| -> Res<()> {
        let job = convert::job_id(job)?;
        with_state(h, |st| {
            st.remove_job(convert::ms_to_s(now_ms), job);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "removeJob")
}

/// `jobInfo(handle, job): Array[Long]` — `[class, estimateMs, source]` with class
/// 0 short / 1 long, source 0 hint / 1 history / 2 running mean / 3 default;
/// `[-1, -1, -1]` for an unknown job.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_jobInfo<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    job: jint,
) -> JLongArray<'l> {
    env.with_env(|env| -> Res<JLongArray<'l>> {
        let job = convert::job_id(job)?;
        let info = with_state(h, |st| {
            let class = convert::class_code(st.driver.job_class(job)) as i64;
            Ok(match st.driver.job_estimate(job) {
                Some((est, src)) => [class, convert::s_to_ms(est), convert::source_code(src)],
                None => [class, -1, -1],
            })
        })?;
        longs_out(env, &info)
    })
    .resolve_with::<ThrowEagle, _>(|| "jobInfo")
}

/// `counters(handle): Array[Long]` — layout in [`layout::COUNTER_NAMES`].
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_counters<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
) -> JLongArray<'l> {
    env.with_env(|env| -> Res<JLongArray<'l>> {
        let c = with_state(h, |st| Ok(layout::counters(st)))?;
        longs_out(env, &c)
    })
    .resolve_with::<ThrowEagle, _>(|| "counters")
}

/// `historyLoad(handle, pathUtf8): Int` — entries loaded, or -1 if the file does not exist.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_historyLoad<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    path: JByteArray<'l>,
) -> jint {
    env.with_env(|env| -> Res<jint> {
        let path = path_in(env, &path)?;
        with_state(h, |st| Ok(history::load_history(&mut st.driver, &path)?))
    })
    .resolve_with::<ThrowEagle, _>(|| "historyLoad")
}

/// `historySave(handle, pathUtf8): Int` — writes the history JSON; returns the entry count.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_historySave<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    path: JByteArray<'l>,
) -> jint {
    env.with_env(|env| -> Res<jint> {
        let path = path_in(env, &path)?;
        with_state(h, |st| Ok(history::save_history(&st.driver, &path)?))
    })
    .resolve_with::<ThrowEagle, _>(|| "historySave")
}

/// `enableDelay(handle, processMs, nodeMs, rackMs): Unit` — turns on Dynamic Delay
/// Scheduling for task sets submitted from now on, with the `dds.*` keys of `create`'s
/// configuration and Spark's initial waits `spark.locality.wait.{process,node,rack}`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_enableDelay<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    process_ms: jlong,
    node_ms: jlong,
    rack_ms: jlong,
) {
    env.with_env(|_env| -> Res<()> {
        with_state(h, |st| {
            let params = st.settings.delay_params([process_ms, node_ms, rack_ms])?;
            Ok(st.driver.enable_delay(params)?)
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "enableDelay")
}

/// `allowedLocality(handle, nowMs, job, valid, pending): Int` — the least local level
/// (Spark `TaskLocality` id) `job` may launch at now. `valid`: the task set's levels, most
/// local first; `pending[i]` 1 if tasks still wait at `valid[i]`, else 0.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_allowedLocality<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    job: jint,
    valid: JIntArray<'l>,
    pending: JIntArray<'l>,
) -> jint {
    env.with_env(|env| -> Res<jint> {
        let job = convert::job_id(job)?;
        let valid = convert::levels(&ints_in(env, &valid)?)?;
        let pending = convert::pending_flags(&ints_in(env, &pending)?, valid.len())?;
        with_state(h, |st| Ok(st.driver.allowed_locality(convert::ms_to_s(now_ms), job, &valid, &pending) as jint))
    })
    .resolve_with::<ThrowEagle, _>(|| "allowedLocality")
}

/// `launchedAt(handle, nowMs, job, level, valid): Unit` — `job` launched a task at `level`;
/// its locality timer resets.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_launchedAt<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    job: jint,
    level: jint,
    valid: JIntArray<'l>,
) {
    env.with_env(|env| -> Res<()> {
        let job = convert::job_id(job)?;
        let level = convert::level(level)?;
        let valid = convert::levels(&ints_in(env, &valid)?)?;
        with_state(h, |st| {
            st.driver.launched_at(convert::ms_to_s(now_ms), job, level, &valid);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "launchedAt")
}

/// `localityFeedback(handle, nowMs, job, preferred, actual, netOhMs): Unit` — a task of
/// `job` preferred level `preferred`, ran at `actual` and lost `netOhMs` to non-locality.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_localityFeedback<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    now_ms: jlong,
    job: jint,
    preferred: jint,
    actual: jint,
    net_oh_ms: f64,
) {
    env.with_env(|_env| -> Res<()> {
        let job = convert::job_id(job)?;
        let preferred = convert::level(preferred)?;
        let actual = convert::level(actual)?;
        if !net_oh_ms.is_finite() || net_oh_ms < 0.0 {
            return Err(Error::Arg { name: "netOhMs", expected: Expect::NonNegative, value: net_oh_ms }.into());
        }
        with_state(h, |st| {
            st.driver.locality_feedback(convert::ms_to_s(now_ms), job, preferred, actual, net_oh_ms / 1000.0);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "localityFeedback")
}

/// `delayHistory(handle, job): Array[Double]` — the job's interval time series, flattened
/// `(atMs, level, intervalMs)` triples, oldest first (empty without delay scheduling).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_delayHistory<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    job: jint,
) -> JDoubleArray<'l> {
    env.with_env(|env| -> Res<JDoubleArray<'l>> {
        let job = convert::job_id(job)?;
        let v = with_state(h, |st| Ok(convert::flatten_history(&st.driver.delay_history(job))))?;
        doubles_out(env, &v)
    })
    .resolve_with::<ThrowEagle, _>(|| "delayHistory")
}

/// `groupFuture(handle, group, signatures, tasks): Unit` — query-aware SRPT: the stages
/// of `group` not submitted yet, as parallel arrays of stage signatures and task counts.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_groupFuture<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    group: jlong,
    signatures: JLongArray<'l>,
    tasks: JIntArray<'l>,
) {
    env.with_env(|env| -> Res<()> {
        let group = u64::try_from(group).map_err(|_| Error::Negative { what: "group", value: group })?;
        let sigs = longs_in(env, &signatures)?;
        let tasks = ints_in(env, &tasks)?;
        if sigs.len() != tasks.len() {
            return Err(Error::GroupFutureLengths { tasks: tasks.len(), signatures: sigs.len() }.into());
        }
        let stages = sigs
            .iter()
            .zip(&tasks)
            .map(|(&s, &t)| Ok((s as u64, convert::count("tasks", t)?)))
            .collect::<Result<Vec<_>, Error>>()?;
        with_state(h, |st| {
            st.driver.set_group_future(group, &stages);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "groupFuture")
}

/// `setTenant(handle, job, tenant, weight, minShare): Unit` — the task set runs for `tenant`
/// (a hash of a Connect session or a scheduler pool's name), at `weight` (> 0) with
/// `minShare` slots (>= 0): see eagle-core's `tenant`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_setTenant<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
    job: jint,
    tenant: jlong,
    weight: jdouble,
    min_share: jint,
) {
    env.with_env(|_env| -> Res<()> {
        let job = convert::job_id(job)?;
        let share = eagle_core::tenant::Share::new(weight, convert::count("minShare", min_share)?)?;
        with_state(h, |st| {
            st.driver.set_tenant(job, tenant as u64, share);
            Ok(())
        })
    })
    .resolve_with::<ThrowEagle, _>(|| "setTenant")
}

/// `adaptiveHistory(handle): Array[Double]` — the adaptive state over time, flattened
/// `(atMs, reservedSlots, cutoffMs)` triples, oldest first (cutoffMs −1 while no split is
/// known; empty under `policy=paper`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_adaptiveHistory<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
) -> JDoubleArray<'l> {
    env.with_env(|env| -> Res<JDoubleArray<'l>> {
        let v = with_state(h, |st| Ok(convert::flatten_adaptive(&st.driver.adaptive_history())))?;
        doubles_out(env, &v)
    })
    .resolve_with::<ThrowEagle, _>(|| "adaptiveHistory")
}

/// `status(handle): Array[Long]` — the counters ([`layout::COUNTER_NAMES`]) then what the
/// engine is doing now ([`layout::STATUS_NAMES`]). Read-only, for metrics and the UI: it is
/// not counted as a call (neither in `nativeCalls` nor by the `failAfterCalls` test hook),
/// so observing the engine never changes what it does.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_status<'l>(
    mut env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
) -> JLongArray<'l> {
    env.with_env(|env| -> Res<JLongArray<'l>> {
        let v = ENGINES.with(h, |st| layout::status(st)).map_err(BridgeError::Handle)?;
        longs_out(env, &v)
    })
    .resolve_with::<ThrowEagle, _>(|| "status")
}

/// `noop(handle): Long` — returns its argument; measures the bare JNI call cost.
#[unsafe(no_mangle)]
pub extern "system" fn Java_org_apache_spark_scheduler_eagle_Native_noop<'l>(
    _env: EnvUnowned<'l>,
    _this: JObject<'l>,
    h: jlong,
) -> jlong {
    // Nothing here can panic, so no catch_unwind (or Env upgrade) is needed.
    h
}
