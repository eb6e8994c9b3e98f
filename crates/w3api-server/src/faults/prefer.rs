//! The `Prefer` request header (RFC 7240), read for the preferences that
//! inject faults: `code`, `delay` and `fault`. Other preferences
//! (`return=minimal`, `respond-async`, …) are not ours and are left alone,
//! as the RFC asks; a value of ours that does not parse is refused, naming it.

use std::time::Duration;

use http::{HeaderMap, StatusCode};

use super::{Fault, Injection, MAX_DELAY, PREFER};

/// The injection `Prefer` asks for; `None` when it asks for none.
pub(crate) fn injection(headers: &HeaderMap) -> Result<Option<Injection>, String> {
    let mut injection = Injection::default();
    for value in headers.get_all(PREFER) {
        let value = value.to_str().map_err(|_| "Prefer: not visible ASCII text".to_string())?;
        // Preferences are separated by commas; parameters after `;` are not ours.
        for preference in value.split(',') {
            let preference = preference.split(';').next().unwrap_or_default().trim();
            let (name, value) = preference.split_once('=').unwrap_or((preference, ""));
            let value = value.trim().trim_matches('"');
            match name.trim().to_ascii_lowercase().as_str() {
                "code" => set(&mut injection.fault, "code", value, status(value)?)?,
                "fault" => set(&mut injection.fault, "fault", value, fault(value)?)?,
                "delay" => set(&mut injection.delay, "delay", value, delay(value)?)?,
                _ => {}
            }
        }
    }
    Ok((!injection.is_empty()).then_some(injection))
}

/// Sets `slot` once: `code` and `fault` both name what goes wrong, so one
/// of them may be given, once.
fn set<T>(slot: &mut Option<T>, name: &str, value: &str, parsed: T) -> Result<(), String> {
    if slot.is_some() {
        return Err(format!("Prefer: {name}={value}: a second fault or delay; ask for one of each"));
    }
    *slot = Some(parsed);
    Ok(())
}

fn status(value: &str) -> Result<Fault, String> {
    value
        .parse::<u16>()
        .ok()
        .filter(|code| (400..600).contains(code))
        .and_then(|code| StatusCode::from_u16(code).ok())
        .map(Fault::Status)
        .ok_or_else(|| format!("Prefer: code={value}: not an error status (400 to 599)"))
}

fn fault(value: &str) -> Result<Fault, String> {
    match value {
        "reset" => Ok(Fault::Reset),
        "truncate" => Ok(Fault::Truncate),
        "malformed" => Ok(Fault::Malformed),
        _ => Err(format!("Prefer: fault={value}: not one of reset, truncate, malformed")),
    }
}

/// The injection a `Prefer` value asks for, written as in the header
/// (`code=429, delay=300ms`): the one syntax of the header and of rules
/// set over JSON-RPC.
pub(crate) fn injection_of(text: &str) -> Result<Option<Injection>, String> {
    let value = text.parse().map_err(|_| format!("Prefer: {text:?} is not a header value"))?;
    let mut headers = HeaderMap::new();
    headers.insert(PREFER, value);
    injection(&headers)
}

fn delay(value: &str) -> Result<Duration, String> {
    let delay = humantime::parse_duration(value)
        .map_err(|_| format!("Prefer: delay={value}: not a duration such as 300ms or 2s"))?;
    if delay > MAX_DELAY {
        return Err(format!("Prefer: delay={value}: longer than {}s", MAX_DELAY.as_secs()));
    }
    Ok(delay)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(values: &[&str]) -> Result<Option<Injection>, String> {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(PREFER, value.parse().unwrap());
        }
        injection(&headers)
    }

    #[test]
    fn each_preference_of_ours_is_read_and_others_are_left_alone() {
        let status = |code| Some(Fault::Status(StatusCode::from_u16(code).unwrap()));
        assert_eq!(parse(&[]), Ok(None));
        assert_eq!(parse(&["return=minimal"]), Ok(None), "not ours");
        assert_eq!(parse(&["code=429"]).unwrap().unwrap().fault, status(429));
        assert_eq!(parse(&["fault=reset"]).unwrap().unwrap().fault, Some(Fault::Reset));
        let both = parse(&["Code=\"503\"; why=test, respond-async, delay=1.5s"]).unwrap().unwrap();
        assert_eq!(both, Injection { fault: status(503), delay: Some(Duration::from_millis(1500)) });
        let split = parse(&["fault=truncate", "delay=300ms"]).unwrap().unwrap();
        assert_eq!(split, Injection { fault: Some(Fault::Truncate), delay: Some(Duration::from_millis(300)) });
    }

    #[test]
    fn a_bad_value_of_ours_is_refused_by_name() {
        for (value, named) in [
            ("code=200", "code=200"),
            ("code=abc", "code=abc"),
            ("code=600", "code=600"),
            ("fault=explode", "fault=explode"),
            ("delay=soon", "delay=soon"),
            ("delay=2m", "longer than 60s"),
            ("code=429, fault=reset", "a second fault"),
        ] {
            let error = parse(&[value]).unwrap_err();
            assert!(error.starts_with("Prefer: ") && error.contains(named), "{value}: {error}");
        }
    }
}
