//! Dates and timestamps in their text forms, as `--where` writes them: `'2026-11-30'` for a
//! DATE column, `'2026-11-30T12:00:00Z'` (or a space for the `T`, fractional seconds, an
//! offset `+01:00`) for a TIMESTAMP column. Parsed exactly into the column's stored integer:
//! days since 1970-01-01, or milliseconds, microseconds or nanoseconds since the epoch.

use crate::metadata::TimeUnit;

/// What a DATE or TIMESTAMP column stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Temporal {
    /// Days since 1970-01-01 (INT32).
    Date,
    /// Units since 1970-01-01T00:00:00 (INT64): UTC when `utc`, else local wall-clock time.
    Timestamp {
        /// The unit of the stored integer.
        unit: TimeUnit,
        /// An instant (`isAdjustedToUTC`), else a local date-time.
        utc: bool,
    },
}

const NANOS_PER_SECOND: i128 = 1_000_000_000;

impl Temporal {
    /// The stored integer of `text` for this column type, or why the text does not fit.
    pub(crate) fn parse(self, text: &str) -> Result<i128, String> {
        match self {
            Temporal::Date => {
                let (days, rest) = parse_date(text)?;
                if !rest.is_empty() {
                    return Err("a DATE literal is 'YYYY-MM-DD'".into());
                }
                Ok(days)
            }
            Temporal::Timestamp { unit, utc } => {
                let nanos = parse_timestamp(text, utc)?;
                let per_unit = match unit {
                    TimeUnit::Millis => 1_000_000,
                    TimeUnit::Micros => 1_000,
                    TimeUnit::Nanos => 1,
                };
                if nanos % per_unit != 0 {
                    return Err(format!(
                        "more digits after the second than the column's unit ({unit:?}) holds"
                    ));
                }
                Ok(nanos / per_unit)
            }
        }
    }
}

/// Parses `digits` decimal digits from the start of `s`.
fn take_number<'a>(s: &'a str, digits: usize, what: &str) -> Result<(i64, &'a str), String> {
    let head = s
        .get(..digits)
        .filter(|h| h.bytes().all(|b| b.is_ascii_digit()));
    match head {
        Some(h) => Ok((h.parse().map_err(|_| format!("bad {what}"))?, &s[digits..])),
        None => Err(format!("expected {digits} digits of the {what}")),
    }
}

fn take_char(s: &str, c: char) -> Result<&str, String> {
    s.strip_prefix(c)
        .ok_or_else(|| format!("expected {c:?} in the literal"))
}

/// Days since 1970-01-01 of the proleptic Gregorian date at the start of `s`, and the rest.
fn parse_date(s: &str) -> Result<(i128, &str), String> {
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (year, s) = take_number(s, 4, "year")?;
    let year = if negative { -year } else { year };
    let (month, s) = take_number(take_char(s, '-')?, 2, "month")?;
    let (day, s) = take_number(take_char(s, '-')?, 2, "day")?;
    if !(1..=12).contains(&month) {
        return Err(format!("month {month} is not 1 to 12"));
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if day < 1 || day > month_days[month as usize - 1] {
        return Err(format!("day {day} is not in month {month} of {year}"));
    }
    Ok((days_from_civil(year, month, day) as i128, s))
}

/// The proleptic Gregorian `(year, month, day)` of `days` since 1970-01-01 (H. Hinnant's
/// `civil_from_days`, counting 400-year eras from 0000-03-01): the inverse of
/// [`days_from_civil`], for every reader and writer that prints a date.
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Days since 1970-01-01 (H. Hinnant's `days_from_civil`, valid for any year here).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Nanoseconds since the epoch of `YYYY-MM-DD[(T| )HH:MM[:SS[.f…]]][Z|±HH:MM]`. On a local
/// (`utc` false) column an offset is refused: the column holds no time zone to convert to.
fn parse_timestamp(text: &str, utc: bool) -> Result<i128, String> {
    let (days, s) = parse_date(text)?;
    let mut nanos = days * 86_400 * NANOS_PER_SECOND;
    let s = match s.strip_prefix(['T', 't', ' ']) {
        None if s.is_empty() => return Ok(nanos),
        None => return Err("expected 'T' or a space after the date".into()),
        Some(s) => s,
    };
    let (hour, s) = take_number(s, 2, "hour")?;
    let (minute, mut s) = take_number(take_char(s, ':')?, 2, "minute")?;
    let mut second = 0;
    if let Some(rest) = s.strip_prefix(':') {
        (second, s) = take_number(rest, 2, "second")?;
        if let Some(rest) = s.strip_prefix('.') {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 9 {
                return Err("fractional seconds take 1 to 9 digits".into());
            }
            let (fraction, rest) = take_number(rest, digits, "fraction")?;
            nanos += fraction as i128 * 10i128.pow(9 - digits as u32);
            s = rest;
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(format!(
            "time {hour:02}:{minute:02}:{second:02} is not a time of day"
        ));
    }
    nanos += ((hour * 60 + minute) * 60 + second) as i128 * NANOS_PER_SECOND;
    let offset_minutes =
        match s {
            "" => 0,
            "Z" | "z" if utc => 0,
            _ if !utc => return Err(
                "the column holds local times (not adjusted to UTC): write the literal without \
                 an offset"
                    .into(),
            ),
            _ => {
                let (sign, rest) = match s.as_bytes()[0] {
                    b'+' => (1, &s[1..]),
                    b'-' => (-1, &s[1..]),
                    _ => return Err(format!("unexpected {s:?} after the time")),
                };
                let (h, rest) = take_number(rest, 2, "offset hours")?;
                let (m, rest) = take_number(take_char(rest, ':')?, 2, "offset minutes")?;
                if !rest.is_empty() || h > 18 || m > 59 {
                    return Err(format!("bad offset {s:?}"));
                }
                sign * (h * 60 + m)
            }
        };
    Ok(nanos - offset_minutes as i128 * 60 * NANOS_PER_SECOND)
}

#[cfg(test)]
mod tests {
    use super::*;

    const UTC_MICROS: Temporal = Temporal::Timestamp {
        unit: TimeUnit::Micros,
        utc: true,
    };

    #[test]
    fn dates_count_days_from_the_epoch() {
        assert_eq!(Temporal::Date.parse("1970-01-01"), Ok(0));
        assert_eq!(Temporal::Date.parse("1969-12-31"), Ok(-1));
        assert_eq!(Temporal::Date.parse("2000-03-01"), Ok(11_017));
        assert_eq!(Temporal::Date.parse("2026-11-30"), Ok(20_787));
        assert_eq!(Temporal::Date.parse("2024-02-29"), Ok(19_782));
        assert!(Temporal::Date.parse("2023-02-29").is_err());
        assert!(Temporal::Date.parse("1900-02-29").is_err());
        assert!(Temporal::Date.parse("2026-13-01").is_err());
        assert!(Temporal::Date.parse("2026-11-30T00:00").is_err());
        assert!(Temporal::Date.parse("26-11-30").is_err());
    }

    #[test]
    fn timestamps_are_exact_in_the_unit() {
        // 2026-11-30T12:00:00Z = 20787 days and 12 hours.
        let at_noon = (20_787 * 86_400 + 12 * 3_600) as i128;
        assert_eq!(
            UTC_MICROS.parse("2026-11-30T12:00:00Z"),
            Ok(at_noon * 1_000_000)
        );
        assert_eq!(
            UTC_MICROS.parse("2026-11-30 13:30:00+01:30"),
            Ok(at_noon * 1_000_000)
        );
        assert_eq!(
            UTC_MICROS.parse("2026-11-30T12:00:00.000001Z"),
            Ok(at_noon * 1_000_000 + 1)
        );
        assert_eq!(
            UTC_MICROS.parse("2026-11-30T12:00"),
            Ok(at_noon * 1_000_000)
        );
        assert_eq!(
            UTC_MICROS.parse("2026-11-30"),
            Ok((at_noon - 12 * 3_600) * 1_000_000)
        );
        let millis = Temporal::Timestamp {
            unit: TimeUnit::Millis,
            utc: true,
        };
        let e = millis.parse("2026-11-30T12:00:00.0001Z").unwrap_err();
        assert!(e.contains("unit"), "{e}");
        let nanos = Temporal::Timestamp {
            unit: TimeUnit::Nanos,
            utc: false,
        };
        assert_eq!(
            nanos.parse("1970-01-01T00:00:00.123456789"),
            Ok(123_456_789)
        );
        assert!(nanos.parse("1970-01-01T00:00:00Z").is_err());
        assert!(UTC_MICROS.parse("2026-11-30T24:00:00Z").is_err());
        assert!(UTC_MICROS.parse("2026-11-30T12:00:00Q").is_err());
    }
}
