//! The game the engine plays under the rules OpenTafl sent, which may end a
//! game where tafl's ruleset does not (a third repetition, an encirclement).

use tafl::rules::{EndReason, Game, GameError, LookAhead, Move, PlayedMove, Side, Status};
use tafl::search::Score;

use super::otn::{GameRules, HostRules};

/// The game the engine plays, and how it stands by the rules OpenTafl sent
/// (which may end it where tafl's ruleset does not, or otherwise).
#[derive(Clone, Debug)]
pub struct HostedGame {
    pub game: Game,
    host: HostRules,
    /// The game's status by OpenTafl's rules.
    pub status: Status,
}

impl HostedGame {
    pub fn new(rules: &GameRules) -> HostedGame {
        HostedGame {
            game: Game::from_position(rules.start),
            host: rules.host,
            status: rules.start.status(),
        }
    }

    pub fn play_text(&mut self, text: &str) -> Result<(), GameError> {
        let played = self.game.play(text)?;
        self.status = self.host.judge(self.game.position(), &played);
        Ok(())
    }

    pub fn play_move(&mut self, mv: Move) -> Result<PlayedMove, GameError> {
        let played = self.game.play_move(mv)?;
        self.status = self.host.judge(self.game.position(), &played);
        Ok(played)
    }

    /// Whether a legal move of the side to move ends the game, by OpenTafl's rules, as
    /// `ended` says.
    pub fn some_move_ends(&self, ended: impl Fn(Status) -> bool) -> bool {
        self.game.position().legal_moves().iter().any(|&mv| {
            let mut line = self.game.look_ahead();
            line.play(mv)
                .is_ok_and(|played| ended(self.host.judge(line.position(), &played)))
        })
    }

    /// The legal moves whose worth OpenTafl's rules fix where tafl's do
    /// not, from the mover's view as a search scores it: those that end the
    /// game by OpenTafl's rules and not as tafl's would (a third
    /// repetition, an encirclement), and under OpenTafl's encirclement the
    /// defenders' moves that let the attackers encircle them at once.
    pub fn fixed_worths(&self) -> Vec<(Move, Score)> {
        let mover = self.game.position().side_to_move();
        let mut fixed = Vec::new();
        for &mv in &self.game.position().legal_moves() {
            let mut line = self.game.look_ahead();
            let Ok(played) = line.play(mv) else { continue };
            let status = self.host.judge(line.position(), &played);
            if status != played.status {
                fixed.push((mv, worth(status, mover, 1)));
            } else if self.host.encirclement
                && mover == Side::Defenders
                && !status.is_over()
                && self.encircling_reply(&line)
            {
                fixed.push((mv, worth(ENCIRCLED, mover, 2)));
            }
        }
        fixed
    }

    /// Whether the attackers, to move on `line`, can encircle the
    /// defenders by OpenTafl's rules.
    fn encircling_reply(&self, line: &LookAhead<'_>) -> bool {
        line.position().legal_moves().iter().any(|&reply| {
            let mut next = line.clone();
            next.play(reply).is_ok_and(|played| {
                played.status == Status::Ongoing
                    && self.host.judge(next.position(), &played) == ENCIRCLED
            })
        })
    }
}

/// The attackers' win by encircling every defender.
const ENCIRCLED: Status = Status::Won {
    winner: Side::Attackers,
    reason: EndReason::Encircled,
};

/// A game's end as a search scores it for `side`, `plies` ahead.
fn worth(status: Status, side: Side, plies: i32) -> Score {
    let won = Score::WON.as_i32() - plies;
    Score::new(match status.winner() {
        Some(winner) if winner == side => won,
        Some(_) => -won,
        None => 0,
    })
}
