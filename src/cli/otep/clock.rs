//! OpenTafl's clock (`clock`), and the time a move is given by it.

use std::time::Duration;

use tafl::rules::{BySide, Side};

/// The least a move is given to think, whatever the clock says.
const MIN_THINKING: Duration = Duration::from_millis(20);

/// Kept off the clock's remaining time.
const CLOCK_MARGIN: Duration = Duration::from_millis(100);

/// The most time a `clock` may give a side (or an overtime period): more
/// is refused, so that no move is ever budgeted days.
pub const MAX_CLOCK: Duration = Duration::from_secs(24 * 60 * 60);

/// The time left on OpenTafl's clock, as its last `clock` said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Main time left, or what is left of the current overtime period.
    left: BySide<Duration>,
    /// Whether `left` is an overtime period's.
    in_overtime: BySide<bool>,
    overtime: Duration,
    overtimes: BySide<u32>,
}

impl Clock {
    /// `<attacker-ms>[*] <defender-ms>[*] <overtime-s> <attacker-overtimes> <defender-overtimes>`;
    /// `None` for an untimed game (a negative time). Every field is read, an untimed game's
    /// too, so that no absurd word passes for a clock.
    ///
    /// # Errors
    /// Text that is no clock (not five fields, a word that is no number), or a time above
    /// [`MAX_CLOCK`].
    pub fn parse(args: &str) -> Result<Option<Clock>, String> {
        let words: Vec<&str> = args.split_whitespace().collect();
        let [
            attackers,
            defenders,
            overtime,
            attacker_overtimes,
            defender_overtimes,
        ] = words.as_slice()
        else {
            return Err(format!(
                "expected five fields (<attackers-ms>[*] <defenders-ms>[*] <overtime-s> \
                 <attackers-overtimes> <defenders-overtimes>), not {}",
                words.len()
            ));
        };
        // A time, and whether it is an overtime period's; `None` for a negative one.
        let time = |word: &str| {
            let millis = word.trim_end_matches('*');
            let (digits, negative) = match millis.strip_prefix('-') {
                Some(digits) => (digits, true),
                None => (millis, false),
            };
            let time = digits
                .parse()
                .map(Duration::from_millis)
                .map_err(|_| format!("{word:?} is not a time in milliseconds"))?;
            if time > MAX_CLOCK {
                return Err(format!("{millis} ms is more than a day"));
            }
            Ok((!negative).then_some((time, millis.len() < word.len())))
        };
        let count = |word: &str| {
            word.parse::<u64>()
                .map_err(|_| format!("{word:?} is not a count"))
        };
        let (attackers, defenders) = (time(attackers)?, time(defenders)?);
        let overtime = Duration::from_secs(count(overtime)?);
        if overtime > MAX_CLOCK {
            return Err(format!(
                "{} s of overtime is more than a day",
                overtime.as_secs()
            ));
        }
        let overtimes = |word| count(word).map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        let (attacker_overtimes, defender_overtimes) = (
            overtimes(attacker_overtimes)?,
            overtimes(defender_overtimes)?,
        );
        let (Some((attackers, attackers_overtime)), Some((defenders, defenders_overtime))) =
            (attackers, defenders)
        else {
            return Ok(None);
        };
        Ok(Some(Clock {
            left: BySide {
                attackers,
                defenders,
            },
            in_overtime: BySide {
                attackers: attackers_overtime,
                defenders: defenders_overtime,
            },
            overtime,
            overtimes: BySide {
                attackers: attacker_overtimes,
                defenders: defender_overtimes,
            },
        }))
    }

    /// The soft budget for one move of `side`, and the latest it may end.
    pub fn budget(&self, side: Side) -> (Duration, Duration) {
        let left = self.left[side];
        let overtime = if self.overtimes[side] > 0 {
            self.overtime
        } else {
            Duration::ZERO
        };
        // In an overtime period: half of it. In main time: a fortieth of
        // it, plus most of an overtime period that would refill anyway.
        let soft = if self.in_overtime[side] {
            left / 2
        } else {
            left / 40 + overtime * 3 / 4
        }
        .max(MIN_THINKING);
        // Never past the clock (less a margin for the pipe and OpenTafl's
        // own bookkeeping), nor much past the budget.
        let hard = (left + overtime)
            .saturating_sub(CLOCK_MARGIN)
            .clamp(soft, soft * 2);
        (soft, hard)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(text: &str) -> Clock {
        Clock::parse(text).unwrap().unwrap()
    }

    #[test]
    fn a_clock_in_main_time_and_in_overtime() {
        let clock = clock("60000 30000* 10 2 1");
        assert_eq!(
            clock.left,
            BySide {
                attackers: Duration::from_secs(60),
                defenders: Duration::from_secs(30)
            }
        );
        assert_eq!(
            clock.in_overtime,
            BySide {
                attackers: false,
                defenders: true
            }
        );
        assert_eq!(clock.overtime, Duration::from_secs(10));
        assert_eq!(
            clock.overtimes,
            BySide {
                attackers: 2,
                defenders: 1
            }
        );
        // Main time: a fortieth of it plus three quarters of an overtime.
        assert_eq!(
            clock.budget(Side::Attackers),
            (Duration::from_millis(9_000), Duration::from_millis(18_000))
        );
        // In an overtime period: half of what is left of it.
        assert_eq!(
            clock.budget(Side::Defenders),
            (Duration::from_secs(15), Duration::from_secs(30))
        );
    }

    #[test]
    fn an_untimed_game_has_no_clock_and_an_unreadable_one_is_refused() {
        assert_eq!(Clock::parse("-1 -1 0 0 0"), Ok(None));
        assert!(Clock::parse("").is_err());
        assert!(Clock::parse("60000 sixty 0 0 0").is_err());
        assert_eq!(
            Clock::parse("18446744073709551615 60000 0 0 0"),
            Err("18446744073709551615 ms is more than a day".to_owned())
        );
        assert!(Clock::parse("60000 60000 18446744073709551615 1 1").is_err());
        // A day is the most.
        assert!(Clock::parse("86400000 86400000* 86400 1 1").is_ok());
        // An untimed game's fields are read too: an absurd one is no clock.
        assert_eq!(
            Clock::parse("99999999999999999999999 -5 0 0 0"),
            Err("\"99999999999999999999999\" is not a time in milliseconds".to_owned())
        );
        assert!(Clock::parse("-5 -5 zero 0 0").is_err());
        // Five fields, no fewer and no more.
        assert_eq!(
            Clock::parse("1000 1000 0 0"),
            Err(
                "expected five fields (<attackers-ms>[*] <defenders-ms>[*] <overtime-s> \
                 <attackers-overtimes> <defenders-overtimes>), not 4"
                    .to_owned()
            )
        );
        assert!(Clock::parse("1000 1000 0 0 0 0").is_err());
    }

    #[test]
    fn a_nearly_spent_clock_still_leaves_time_to_move() {
        let clock = clock("50 60000 0 0 0");
        let (soft, hard) = clock.budget(Side::Attackers);
        assert_eq!(soft, MIN_THINKING);
        assert!(hard >= soft);
    }
}
