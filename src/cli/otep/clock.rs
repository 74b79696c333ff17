//! OpenTafl's clock (`clock`), read as the engine's game clock: the engine's
//! own allocation (`tafl::search::Clock::allocate`, SuggestMove's too) gives
//! each move its time.

use std::time::Duration;

use tafl::rules::{BySide, Side};
use tafl::search::{Clock, TimeAllocation};

/// The most time a `clock` may give a side (or an overtime period): more
/// is refused, so that no move is ever budgeted days.
pub const MAX_CLOCK: Duration = Duration::from_secs(24 * 60 * 60);

/// The time left on OpenTafl's clock, as its last `clock` said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenTaflClock {
    /// Main time left, or what is left of the current overtime period.
    left: BySide<Duration>,
    /// Whether `left` is an overtime period's.
    in_overtime: BySide<bool>,
    overtime: Duration,
    overtimes: BySide<u32>,
}

impl OpenTaflClock {
    /// `<attacker-ms>[*] <defender-ms>[*] <overtime-s> <attacker-overtimes> <defender-overtimes>`;
    /// `None` for an untimed game (a negative time). Every field is read, an untimed game's
    /// too, so that no absurd word passes for a clock.
    ///
    /// # Errors
    /// Text that is no clock (not five fields, a word that is no number), or a time above
    /// [`MAX_CLOCK`].
    pub fn parse(args: &str) -> Result<Option<OpenTaflClock>, String> {
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
        Ok(Some(OpenTaflClock {
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

    /// `side`'s clock as the engine reads a game clock. In overtime OpenTafl's time is what is
    /// left of the running period: the move's own, as a period is.
    pub fn for_side(&self, side: Side) -> Clock {
        let main_time = |side: Side| {
            if self.in_overtime[side] {
                Duration::ZERO
            } else {
                self.left[side]
            }
        };
        let (overtime, overtime_periods) = if self.in_overtime[side] {
            (self.left[side], self.overtimes[side].max(1))
        } else {
            (self.overtime, self.overtimes[side])
        };
        Clock {
            remaining: main_time(side),
            opponent_remaining: main_time(side.opponent()),
            increment: Duration::ZERO,
            overtime,
            overtime_periods,
            moves_to_go: 0,
        }
    }

    /// The time the engine gives `side`'s move, `move_overhead` taken off.
    pub fn allocate(&self, side: Side, move_overhead: Duration) -> TimeAllocation {
        self.for_side(side).allocate(move_overhead)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tafl::search::DEFAULT_MOVE_OVERHEAD;
    use tafl::service::{CapsConfig, pb};

    fn clock(text: &str) -> OpenTaflClock {
        OpenTaflClock::parse(text).unwrap().unwrap()
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
        // Main time, with its periods; in overtime, what is left of the period is the move's.
        assert_eq!(
            clock.for_side(Side::Attackers),
            Clock {
                remaining: Duration::from_secs(60),
                opponent_remaining: Duration::ZERO,
                increment: Duration::ZERO,
                overtime: Duration::from_secs(10),
                overtime_periods: 2,
                moves_to_go: 0,
            }
        );
        assert_eq!(
            clock.for_side(Side::Defenders),
            Clock {
                remaining: Duration::ZERO,
                opponent_remaining: Duration::from_secs(60),
                increment: Duration::ZERO,
                overtime: Duration::from_secs(30),
                overtime_periods: 1,
                moves_to_go: 0,
            }
        );
    }

    /// The same clock, as OpenTafl's `clock` line and as SuggestMove's `Clock`, with the same
    /// move overhead (both default to the engine's): the same time for the move. Both then
    /// search within `Limits::on_clock` of it.
    #[test]
    fn opentafl_and_suggest_move_allocate_alike() {
        assert_eq!(CapsConfig::default().move_overhead, DEFAULT_MOVE_OVERHEAD);
        let cases = [
            (
                "60000 30000 10 2 1",
                Side::Attackers,
                pb::Clock {
                    remaining_ms: 60_000,
                    opponent_remaining_ms: 30_000,
                    overtime_ms: 10_000,
                    overtime_periods: 2,
                    ..pb::Clock::default()
                },
            ),
            (
                "60000 30000* 10 2 1",
                Side::Defenders,
                pb::Clock {
                    opponent_remaining_ms: 60_000,
                    overtime_ms: 30_000,
                    overtime_periods: 1,
                    ..pb::Clock::default()
                },
            ),
            (
                "300000 250000 0 0 0",
                Side::Defenders,
                pb::Clock {
                    remaining_ms: 250_000,
                    opponent_remaining_ms: 300_000,
                    ..pb::Clock::default()
                },
            ),
            (
                "40 60000 0 0 0",
                Side::Attackers,
                pb::Clock {
                    remaining_ms: 40,
                    opponent_remaining_ms: 60_000,
                    ..pb::Clock::default()
                },
            ),
        ];
        for (line, side, sent) in cases {
            let suggest_move = Clock::try_from(&sent).expect("a clock");
            assert_eq!(
                clock(line).allocate(side, DEFAULT_MOVE_OVERHEAD),
                suggest_move.allocate(DEFAULT_MOVE_OVERHEAD),
                "{line} for the {side}"
            );
        }
    }

    #[test]
    fn an_untimed_game_has_no_clock_and_an_unreadable_one_is_refused() {
        assert_eq!(OpenTaflClock::parse("-1 -1 0 0 0"), Ok(None));
        assert!(OpenTaflClock::parse("").is_err());
        assert!(OpenTaflClock::parse("60000 sixty 0 0 0").is_err());
        assert_eq!(
            OpenTaflClock::parse("18446744073709551615 60000 0 0 0"),
            Err("18446744073709551615 ms is more than a day".to_owned())
        );
        assert!(OpenTaflClock::parse("60000 60000 18446744073709551615 1 1").is_err());
        // A day is the most.
        assert!(OpenTaflClock::parse("86400000 86400000* 86400 1 1").is_ok());
        // An untimed game's fields are read too: an absurd one is no clock.
        assert_eq!(
            OpenTaflClock::parse("99999999999999999999999 -5 0 0 0"),
            Err("\"99999999999999999999999\" is not a time in milliseconds".to_owned())
        );
        assert!(OpenTaflClock::parse("-5 -5 zero 0 0").is_err());
        // Five fields, no fewer and no more.
        assert_eq!(
            OpenTaflClock::parse("1000 1000 0 0"),
            Err(
                "expected five fields (<attackers-ms>[*] <defenders-ms>[*] <overtime-s> \
                 <attackers-overtimes> <defenders-overtimes>), not 4"
                    .to_owned()
            )
        );
        assert!(OpenTaflClock::parse("1000 1000 0 0 0 0").is_err());
    }

    #[test]
    fn a_spent_clock_leaves_depth_one_alone() {
        let allocation = clock("50 60000 0 0 0").allocate(Side::Attackers, DEFAULT_MOVE_OVERHEAD);
        assert_eq!(allocation.hard, Duration::ZERO);
    }
}
