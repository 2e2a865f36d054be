//! What the tests of the application's parts share: a valid configuration.

use eagle_core::settings::EngineSettings;

/// The configuration of every engine key as the plugin sends them
/// ([`eagle_testkit::ENGINE_CONFIG`]), with `changes` applied.
pub(crate) fn settings_with(changes: &[(&str, &str)]) -> EngineSettings {
    EngineSettings::from_pairs(eagle_testkit::engine_config_with(changes)).unwrap()
}

/// A valid configuration (every engine key set).
pub(crate) fn settings() -> EngineSettings {
    settings_with(&[])
}
