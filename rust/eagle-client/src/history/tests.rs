//! Unit tests of the history file: its format, and loading and saving it.

use super::*;
use crate::application::tests::settings;
use crate::application::Application;

#[test]
fn history_json_round_trips_and_rejects_garbage() {
    let entries = vec![(0xdead_beef_0000_0001u64, 2.5, 7u64), (1, 0.25, 1)];
    let text = render_history(&entries);
    assert!(text.contains("deadbeef00000001"), "{text}");
    assert_eq!(parse_history(&text).unwrap(), entries);
    assert!(parse_history("{").is_err());
    assert!(parse_history(r#"{"format":"other","entries":[]}"#).is_err());
    assert!(
        parse_history(r#"{"format":"eagle-history/1","entries":[{"signature":"zz","meanMs":1,"samples":1}]}"#).is_err()
    );
}

fn entry(sig: &str, mean: &str, samples: &str) -> String {
    format!("{{\"format\": \"eagle-history/1\", \"entries\": [\n  {{\"signature\": \"0000000000000001\", \"meanMs\": 5, \"samples\": 2}},\n  {{\"signature\": \"{sig}\", \"meanMs\": {mean}, \"samples\": {samples}}}\n]}}")
}

#[test]
fn history_rejects_huge_or_bad_samples_naming_the_line() {
    assert_eq!(parse_history(&entry("0000000000000002", "7", "3")).unwrap().len(), 2);
    for (mean, samples, what) in [
        ("1e308", "1", "meanMs"),
        ("-1", "1", "meanMs"),
        ("1e12", "1", "meanMs"),
        ("5", "0", "samples"),
        ("5", "18446744073709551615", "samples"),
    ] {
        let e = parse_history(&entry("0000000000000002", mean, samples)).unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains(what), "{mean} {samples}: {e}");
    }
    let e = parse_history(&entry("zz", "1", "1")).unwrap_err().to_string();
    assert!(e.contains("line 3") && e.contains("signature"), "{e}");
    let e = parse_history(&entry("0000000000000002", "\"x\"", "1")).unwrap_err().to_string();
    assert!(e.contains("line 3"), "{e}");
}

#[test]
fn loaded_history_keeps_estimates_finite() {
    // Before validation, 1e308 ms x many samples overflowed the weighted mean to inf/NaN.
    let dir = std::env::temp_dir().join(format!("eagle-hist-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("h.json");
    std::fs::write(&path, entry("0000000000000002", "1e308", "1000000")).unwrap();
    let mut st = Application::new(settings()).unwrap();
    let e = load_history(&mut st.driver, &path).unwrap_err().to_string();
    assert!(e.contains(&path.display().to_string()) && e.contains("line 3"), "{e}");
    let job = st.driver.submit(0.0, 1, None, None, 2);
    let (est, _) = st.driver.job_estimate(job).unwrap();
    assert!(est.is_finite(), "{est}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn concurrent_saves_to_one_path_never_collide() {
    // Two applications sharing history.path used to share "<path>.tmp": one's rename
    // took the other's file away (ENOENT) or published a half-written file.
    let dir = std::env::temp_dir().join(format!("eagle-hist-race-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("history.json");
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut st = Application::new(settings()).unwrap();
                st.driver.load_history(&(0..500u64).map(|s| (s * 8 + t, 1.0, 1)).collect::<Vec<_>>());
                for _ in 0..20 {
                    save_history(&st.driver, &path).map_err(|e| format!("thread {t}: {e}"))?;
                    let text = std::fs::read_to_string(&path).unwrap();
                    parse_history(&text).map_err(|e| format!("thread {t} read a torn file: {e}"))?;
                }
                Ok::<(), String>(())
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 1, "no temporary file left behind: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
