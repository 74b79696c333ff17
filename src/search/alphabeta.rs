//! Iterative-deepening principal-variation alpha-beta.
//!
//! Node kinds are split into helpers: [`Searcher::iterate`] (the root loop
//! with aspiration windows), [`Searcher::node`] (PVS with the table, reverse
//! futility pruning, late move reductions and an extension when the king has
//! an open corner line), and [`Searcher::quiescence`] (the leaves: forcing
//! moves only, captures and the king's escape threats, and the blocks they
//! force). Positions are copied, never unmade
//! (`Position` is `Copy`), and nothing is allocated per node.
//!
//! Repetition (docs/RULES.md rule 9 and its variants), counting the game's
//! reversible history and the search path together: a position standing for
//! the third time ends the game (Copenhagen: attackers win; Fetlar: draw;
//! Tablut: nothing). Approximation: a position that already stood once *on the
//! search path* is scored as if it came a third time when the side that
//! repeated it is the one the repetition hurts (Copenhagen: a defender move;
//! Fetlar: either, a draw), since that side could have deviated and would
//! have to sooner or later.

use arrayvec::ArrayVec;

use super::eval::cache::ScoreCache;
use super::eval::classic::{Mailbox, evaluate_board, index_of, square_of};
use super::eval::nnue::{Accumulator, FeatureSet, HIDDEN};
use super::eval::{Evaluator, network_score};
use super::limits::Stopwatch;
use super::ordering::{History, MovePicker};
use super::params::*;
use super::tt::{Bound, Entry, Sharing, Table, TableView};
use super::variation::{Variation, seed_free, with_bonus, without_bonus};
use crate::rules::{Game, MAX_MOVES, Move, PASS_HASH, Position, Rules, Side, Status};

/// Scratch memory reused by one search at a time: the table, the history, the network's
/// accumulators by ply and the evaluator's latest scores.
pub(crate) struct Workspace {
    pub table: Table,
    history: History,
    accumulators: Vec<Accumulator>,
    scores: ScoreCache,
}

impl Workspace {
    pub fn new(hash_mb: usize) -> Workspace {
        Workspace {
            table: Table::new(hash_mb, Sharing::Private),
            history: History::new(),
            accumulators: Vec::new(),
            scores: ScoreCache::new(),
        }
    }
}

/// The hashes of the game's positions since the last capture, before the
/// current one: what the search counts repetitions against.
fn game_hashes(game: &Game) -> Vec<u64> {
    let history = game.reversible_history();
    history[..history.len().saturating_sub(1)]
        .iter()
        .map(Position::hash)
        .collect()
}

/// What the root loop found: the last completed iteration.
#[derive(Clone, Debug)]
pub(crate) struct Outcome {
    pub best_move: Move,
    pub score: i32,
    pub pv: Vec<Move>,
    pub depth: u32,
    pub nodes: u64,
}

struct PvLine {
    moves: [Option<Move>; MAX_PLY + 1],
    len: usize,
}

pub(crate) struct Searcher<'a> {
    table: TableView<'a>,
    history: &'a mut History,
    pub clock: Stopwatch<'a>,
    pub nodes: u64,
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    pv: Box<[PvLine]>,
    rules: Rules,
    evaluator: Evaluator<'a>,
    /// The network's accumulator of the position at each ply of the path (unused when classic).
    accumulators: &'a mut [Accumulator],
    /// The evaluator's scores of the positions this search evaluated lately; none for a network
    /// of the pieces alone, which scores a position about as fast as the cache finds it.
    scores: Option<&'a mut ScoreCache>,
    variation: Variation,
    /// Hashes of the game's positions since the last capture, before the root.
    game_hashes: Vec<u64>,
    /// Hashes of the positions on the search path, by ply.
    path: [u64; MAX_PLY + 2],
    aborted: bool,
    /// The score of the best root move found so far in the running iteration, and the variety
    /// bonus within it.
    root_score: i32,
    root_bonus: i32,
    /// Root moves not to search: the lines a multi-PV analysis already has.
    pub excluded_root_moves: Vec<Move>,
}

impl<'a> Searcher<'a> {
    /// A search of the game's position on the workspace's own table, or on `shared` when given.
    pub fn new(
        workspace: &'a mut Workspace,
        shared: Option<TableView<'a>>,
        clock: Stopwatch<'a>,
        game: &Game,
        evaluator: Evaluator<'a>,
        variation: Variation,
    ) -> Searcher<'a> {
        if matches!(evaluator, Evaluator::Network(_)) {
            workspace
                .accumulators
                .resize(MAX_PLY + 2, Accumulator([0; HIDDEN]));
        }
        workspace.history.clear();
        let scores = match evaluator {
            Evaluator::Network(network) if network.features() == FeatureSet::Pieces => None,
            _ => {
                workspace.scores.clear();
                Some(&mut workspace.scores)
            }
        };
        let pv = (0..=MAX_PLY)
            .map(|_| PvLine {
                moves: [None; MAX_PLY + 1],
                len: 0,
            })
            .collect();
        Searcher {
            table: shared.unwrap_or(TableView::own(&workspace.table)),
            history: &mut workspace.history,
            clock,
            nodes: 0,
            killers: [[None; 2]; MAX_PLY + 1],
            pv,
            rules: game.position().variant().rules,
            evaluator,
            accumulators: &mut workspace.accumulators,
            scores,
            variation,
            game_hashes: game_hashes(game),
            path: [0; MAX_PLY + 2],
            aborted: false,
            root_score: 0,
            root_bonus: 0,
            excluded_root_moves: Vec::new(),
        }
    }

    /// Iterative deepening from `root`. `None` when not even depth 1 completed before the hard stop.
    pub fn iterate(&mut self, root: &Position) -> Option<Outcome> {
        self.set_root(root);
        let mut best: Option<Outcome> = None;
        let mut depth = 1;
        loop {
            let score = self.aspiration(root, depth, best.as_ref().map(|outcome| outcome.score));
            let pv: Vec<Move> = self.pv[0].moves[..self.pv[0].len]
                .iter()
                .map_while(|mv| *mv)
                .collect();
            if self.aborted {
                // Out of time mid-iteration: a root move searched in full at this depth that beat
                // the rest so far is better informed than the last iteration's choice.
                if self.clock.timed_out()
                    && let Some(outcome) = best.as_mut()
                    && let Some(&best_move) = pv.first()
                {
                    outcome.best_move = best_move;
                    outcome.score = self.root_score - self.root_bonus;
                    outcome.pv = pv;
                }
                break;
            }
            let Some(&best_move) = pv.first() else { break };
            if depth == 1 && self.clock.past_deadline() {
                // Too late for any answer: the caller's deadline has gone.
                return None;
            }
            // The move's own score, not the total that chose it.
            let score = score - self.root_bonus;
            best = Some(Outcome {
                best_move,
                score,
                pv,
                depth: depth as u32,
                nodes: self.nodes,
            });
            self.clock.may_stop_soft = true;
            // A forced result found within the horizon: deeper search cannot change it.
            if score.abs() >= WIN_BOUND && WIN - score.abs() <= depth {
                break;
            }
            if !self
                .clock
                .may_start_iteration(depth as u32, self.nodes, best_move, score)
            {
                break;
            }
            depth += 1;
        }
        if let Some(outcome) = best.as_mut() {
            outcome.nodes = self.nodes;
        }
        best
    }

    /// One iteration from `root` to `depth` (the moves in
    /// `excluded_root_moves` left out): its score and principal variation,
    /// `None` once the search was stopped.
    pub fn search_root(
        &mut self,
        root: &Position,
        depth: i32,
        previous: Option<i32>,
    ) -> Option<(i32, Vec<Move>)> {
        self.set_root(root);
        let score = self.aspiration(root, depth, previous);
        if self.aborted {
            return None;
        }
        let pv: Vec<Move> = self.pv[0].moves[..self.pv[0].len]
            .iter()
            .map_while(|mv| *mv)
            .collect();
        Some((score, pv))
    }

    /// Whether a root move other than those in `excluded_root_moves` scores at
    /// least `threshold` at `depth`: one null-window pass over the root's
    /// moves, far cheaper than the next line's exact score. `None` once the
    /// search was stopped.
    pub fn root_reaches(&mut self, root: &Position, depth: i32, threshold: i32) -> Option<bool> {
        self.set_root(root);
        let (mut alpha, mut beta) = (threshold - 1, threshold);
        // At the root the table and the pruning of `node` would answer for the excluded moves too.
        let board = self.open_node(root, 0, &mut alpha, &mut beta).ok()?;
        let score = self.search_moves(root, &board, depth, 0, alpha, beta, None);
        (!self.aborted).then_some(score >= threshold)
    }

    /// The root's hash on the path and its accumulator.
    fn set_root(&mut self, root: &Position) {
        self.path[0] = root.hash();
        if let Evaluator::Network(network) = self.evaluator {
            self.accumulators[0] = Accumulator::new(network, root);
        }
    }

    fn aspiration(&mut self, root: &Position, depth: i32, previous: Option<i32>) -> i32 {
        let mut window = ASPIRATION_WINDOW;
        let (mut alpha, mut beta) = match previous {
            Some(score) if depth > ASPIRATION_MIN_DEPTH && score.abs() < WIN_BOUND => {
                (score - window, score + window)
            }
            _ => (-WIN, WIN),
        };
        loop {
            let score = self.node(root, depth, 0, alpha, beta);
            if self.aborted {
                return score;
            }
            if score <= alpha && alpha > -WIN {
                alpha = (alpha - window).max(-WIN);
            } else if score >= beta && beta < WIN {
                beta = (beta + window).min(WIN);
            } else {
                return score;
            }
            window *= 3;
        }
    }

    /// The static score of a leaf at `ply`, with the level's noise.
    #[inline]
    fn static_eval(&mut self, position: &Position, board: &Mailbox, ply: usize) -> i32 {
        let hash = position.hash();
        let score = match self.scores.as_deref().and_then(|scores| scores.get(hash)) {
            Some(score) => score,
            None => {
                let score = match self.evaluator {
                    Evaluator::Classic(weights) => evaluate_board(board, weights),
                    Evaluator::Network(network) => {
                        network_score(network, &self.accumulators[ply], board)
                    }
                };
                if let Some(scores) = self.scores.as_deref_mut() {
                    scores.insert(hash, score);
                }
                score
            }
        };
        score + self.variation.noise(hash)
    }

    /// A win for the side to move in one ply that the evaluation sees without playing it.
    #[inline]
    fn immediate_win(&self, board: &Mailbox, ply: usize) -> Option<i32> {
        board
            .side_to_move_wins_now()
            .then_some(WIN - (ply as i32 + 1))
    }

    /// Ends of the game at this node: the rules' verdict, or a repetition. From the side to move's view.
    fn terminal(&self, position: &Position, ply: usize) -> Option<i32> {
        let side = position.side_to_move();
        let lost = -(WIN - ply as i32);
        match position.status() {
            Status::Ongoing => {}
            Status::Won { winner, .. } => return Some(if winner == side { -lost } else { lost }),
            Status::Drawn { .. } => return Some(0),
        }
        let verdict = self.rules.repetition_outcome()?;
        let hash = self.path[ply];
        let in_game = self
            .game_hashes
            .iter()
            .filter(|&&earlier| earlier == hash)
            .count();
        // Same side to move only: every second ply back.
        let on_path = (0..ply)
            .rev()
            .skip(1)
            .step_by(2)
            .filter(|&earlier| self.path[earlier] == hash)
            .count();
        // A side that loses by repeating (the defenders in Copenhagen) just
        // moved when the winner is to move.
        let repeated_by_loser = match verdict.winner() {
            Some(winner) => side == winner && on_path > 0,
            None => on_path > 0,
        };
        if in_game + on_path >= 2 || repeated_by_loser {
            return Some(match verdict.winner() {
                Some(winner) if winner == side => -lost,
                Some(_) => lost,
                None => 0,
            });
        }
        None
    }

    #[inline]
    fn count_node(&mut self) -> bool {
        self.nodes += 1;
        if self.clock.should_stop(self.nodes) {
            self.aborted = true;
        }
        self.aborted
    }

    /// What every node does first: the end of the game, the mate distance,
    /// the node count and a win in one ply. `Err` holds the score when that
    /// settles the node; otherwise the board to search it on.
    #[inline]
    fn open_node(
        &mut self,
        position: &Position,
        ply: usize,
        alpha: &mut i32,
        beta: &mut i32,
    ) -> Result<Mailbox, i32> {
        self.pv[ply].len = 0;
        if ply > 0 {
            if let Some(score) = self.terminal(position, ply) {
                return Err(score);
            }
            // Mate distance: no line from here beats a win found nearer the root.
            *alpha = (*alpha).max(-(WIN - ply as i32));
            *beta = (*beta).min(WIN - ply as i32 - 1);
            if *alpha >= *beta {
                return Err(*alpha);
            }
        }
        if self.count_node() {
            return Err(0);
        }
        let board = Mailbox::new(position);
        // At the root a move must come out of the loop, so the shortcut waits for ply 1.
        if ply > 0
            && let Some(score) = self.immediate_win(&board, ply)
        {
            return Err(score);
        }
        Ok(board)
    }

    /// Principal-variation search of `position` to `depth` plies.
    fn node(
        &mut self,
        position: &Position,
        mut depth: i32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        let board = match self.open_node(position, ply, &mut alpha, &mut beta) {
            Ok(board) => board,
            Err(score) => return score,
        };
        let king_line_open = board.side_to_move == Side::Attackers
            && board
                .king
                .is_some_and(|king| board.open_corner_lines(king) != 0);
        if depth <= 0 || ply >= MAX_PLY - 4 {
            return self.quiescence(position, &board, ply, alpha, beta, 0);
        }
        // The king threatens to escape: the attackers' reply is forced, look one ply further.
        if king_line_open && ply < 2 * MAX_PLY / 3 {
            depth += 1;
        }

        let hash = position.hash();
        let entry = self.table.probe(hash, ply);
        if let Some(entry) = entry
            && !pv_node
            && entry.depth >= depth
        {
            let cut = match entry.bound {
                Bound::Exact => true,
                Bound::Lower => entry.score >= beta,
                Bound::Upper => entry.score <= alpha,
            };
            if cut {
                return entry.score;
            }
        }

        let quiet_node = !pv_node
            && !king_line_open
            && beta.abs() < WIN_BOUND
            && board.king_capture_square().is_none();
        if quiet_node {
            let eval = self.static_eval(position, &board, ply);
            // Reverse futility: far above beta at low depth, assume a quiet move keeps it there.
            if depth <= RFP_MAX_DEPTH && eval - RFP_MARGIN * depth >= beta {
                return eval;
            }
            // Null move: if passing still fails high, a real move will (zugzwang is rare in tafl).
            if depth >= NULL_MOVE_MIN_DEPTH && eval >= beta && self.null_allowed(ply) {
                let reduction = NULL_MOVE_REDUCTION + depth / 4;
                let passed = position.passed();
                self.enter(ply, position, &passed);
                let score = -self.node(&passed, depth - 1 - reduction, ply + 1, -beta, -beta + 1);
                if self.aborted {
                    return 0;
                }
                if score >= beta {
                    return if score >= WIN_BOUND { beta } else { score };
                }
            }
        }

        self.search_moves(
            position,
            &board,
            depth,
            ply,
            alpha,
            beta,
            entry.and_then(|entry| entry.best_move),
        )
    }

    /// No two passes in a row (the position would just come back).
    fn null_allowed(&self, ply: usize) -> bool {
        ply == 0 || self.path[ply] != self.path[ply - 1] ^ PASS_HASH
    }

    /// The move loop of [`Searcher::node`]: the table's move before any generation, then the rest in order.
    #[allow(clippy::too_many_arguments)]
    fn search_moves(
        &mut self,
        position: &Position,
        board: &Mailbox,
        depth: i32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
        table_move: Option<Move>,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        let original_alpha = alpha;
        let side = position.side_to_move();
        let mut best_score = -WIN;
        let mut best_move = None;
        let mut best_bonus = 0;
        let mut searched = 0usize;
        let mut quiets_tried: ArrayVec<Move, 32> = ArrayVec::new();

        let table_move = table_move.filter(|&mv| {
            position.check(mv).is_ok() && !(ply == 0 && self.excluded_root_moves.contains(&mv))
        });
        let mut picker = MovePicker::empty();
        let mut generated = false;
        loop {
            let (order, mv) = if searched == 0
                && let Some(mv) = table_move
            {
                (ORDER_WIN, mv)
            } else {
                if !generated {
                    let moves = position.legal_moves();
                    let mut route_blocks: ArrayVec<usize, 32> = ArrayVec::new();
                    if side == Side::Attackers {
                        board.route_block_squares(&mut route_blocks);
                    }
                    picker.fill(
                        board,
                        &moves,
                        table_move,
                        self.killers[ply],
                        self.history,
                        &route_blocks,
                    );
                    generated = true;
                }
                match picker.next() {
                    Some((_, mv)) if ply == 0 && self.excluded_root_moves.contains(&mv) => {
                        continue;
                    }
                    Some(next) => next,
                    None => break,
                }
            };

            let mut child = *position;
            let captures = child.play_unchecked(mv);
            self.enter(ply, position, &child);
            let quiet = captures.is_empty() && order < ORDER_BLOCK_ROUTE;
            // Full strength's variety: the move is searched within the window less its bonus.
            let bonus = self.variation.move_bonus(ply, child.hash());
            let (own_alpha, own_beta) = (without_bonus(alpha, bonus), without_bonus(beta, bonus));

            let score = if searched == 0 {
                -self.node(&child, depth - 1, ply + 1, -own_beta, -own_alpha)
            } else {
                let reduction = if depth >= LMR_MIN_DEPTH
                    && searched >= LMR_FULL_MOVES
                    && quiet
                    && order < ORDER_KILLER_SECOND
                {
                    1 + i32::from(searched >= LMR_DEEP_MOVES)
                        + i32::from(!pv_node && searched >= 3 * LMR_DEEP_MOVES)
                } else {
                    0
                };
                let mut score = -self.node(
                    &child,
                    depth - 1 - reduction,
                    ply + 1,
                    -own_alpha - 1,
                    -own_alpha,
                );
                if score > own_alpha && reduction > 0 && !self.aborted {
                    score = -self.node(&child, depth - 1, ply + 1, -own_alpha - 1, -own_alpha);
                }
                if score > own_alpha && score < own_beta && !self.aborted {
                    score = -self.node(&child, depth - 1, ply + 1, -own_beta, -own_alpha);
                }
                score
            };
            if self.aborted {
                return 0;
            }
            searched += 1;
            let total = with_bonus(score, bonus);

            if total > best_score {
                best_score = total;
                best_move = Some(mv);
                best_bonus = total - score;
                if total > alpha {
                    alpha = total;
                    self.update_pv(ply, mv);
                    if ply == 0 {
                        self.root_score = total;
                        self.root_bonus = best_bonus;
                    }
                }
            }
            if alpha >= beta {
                if quiet {
                    self.reward_quiet(side, ply, depth, mv, &quiets_tried);
                }
                break;
            }
            if quiet && !quiets_tried.is_full() {
                quiets_tried.push(mv);
            }
        }

        if searched == 0 {
            // The rules end a game without moves, so this is unreachable; score it as the loss it would be.
            return -(WIN - ply as i32);
        }
        if ply == 0 && !self.excluded_root_moves.is_empty() {
            // A score over some of the root's moves is no score of the root.
            return best_score;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let (score, bound) = seed_free(best_score, best_bonus, bound);
        self.table.store(
            position.hash(),
            ply,
            Entry {
                best_move,
                score,
                depth,
                bound,
            },
        );
        best_score
    }

    /// A leaf: the static score, unless a forcing move beats it. The
    /// attackers must block the king's one open corner line (two cannot be
    /// blocked); otherwise the side to move may stand on the static score or
    /// play a capture or, the defenders, a king move that opens a corner
    /// line, for `QUIESCENCE_PLIES` such moves past the horizon
    /// (`forcing_plies` played so far).
    fn quiescence(
        &mut self,
        position: &Position,
        board: &Mailbox,
        ply: usize,
        alpha: i32,
        beta: i32,
        forcing_plies: u32,
    ) -> i32 {
        if board.side_to_move == Side::Attackers
            && let Some(king) = board.king
        {
            let lines = board.open_corner_lines(king).count_ones();
            if lines >= 2 {
                // One move blocks one line; the king cannot be taken (checked before).
                return -(WIN - (ply as i32 + 2));
            }
            if lines == 1 {
                return self.block_line(position, board, ply, alpha, beta, forcing_plies);
            }
        }
        let standing = self.static_eval(position, board, ply);
        if standing >= beta || forcing_plies >= QUIESCENCE_PLIES || ply >= MAX_PLY - 4 {
            return standing;
        }
        let moves = forcing_moves(position, board);
        let alpha = alpha.max(standing);
        self.best_leaf_move(
            position,
            ply,
            moves,
            standing,
            alpha,
            beta,
            forcing_plies + 1,
        )
    }

    /// Plays each of `moves` from a leaf and returns the best score, starting
    /// from `best` (what the side to move has without them); the children
    /// count `forcing_plies`.
    #[allow(clippy::too_many_arguments)]
    fn best_leaf_move(
        &mut self,
        position: &Position,
        ply: usize,
        moves: impl IntoIterator<Item = Move>,
        mut best: i32,
        mut alpha: i32,
        beta: i32,
        forcing_plies: u32,
    ) -> i32 {
        for mv in moves {
            let mut child = *position;
            child.play_unchecked(mv);
            self.enter(ply, position, &child);
            let score = -self.leaf(&child, ply + 1, -beta, -alpha, forcing_plies);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                }
                if alpha >= beta {
                    break;
                }
            }
        }
        best
    }

    /// A node past the horizon: [`Searcher::quiescence`] after the checks every node makes.
    fn leaf(
        &mut self,
        position: &Position,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
        forcing_plies: u32,
    ) -> i32 {
        match self.open_node(position, ply, &mut alpha, &mut beta) {
            Ok(board) => self.quiescence(position, &board, ply, alpha, beta, forcing_plies),
            Err(score) => score,
        }
    }

    /// Steps from `position` at `ply` to `child`: its hash on the path, its accumulator.
    #[inline]
    fn enter(&mut self, ply: usize, position: &Position, child: &Position) {
        self.path[ply + 1] = child.hash();
        if let Evaluator::Network(network) = self.evaluator {
            self.accumulators[ply + 1] = self.accumulators[ply].after(network, position, child);
        }
    }

    /// The attackers must put a piece on the king's one open line; anything
    /// else loses. The block is forced, so it counts no forcing ply.
    fn block_line(
        &mut self,
        position: &Position,
        board: &Mailbox,
        ply: usize,
        alpha: i32,
        beta: i32,
        forcing_plies: u32,
    ) -> i32 {
        let mut blocks: ArrayVec<usize, 32> = ArrayVec::new();
        board.route_block_squares(&mut blocks);
        let moves = position
            .legal_moves()
            .into_iter()
            .filter(|mv| blocks.contains(&index_of(mv.to)));
        let lost = -(WIN - (ply as i32 + 2));
        self.best_leaf_move(position, ply, moves, lost, alpha, beta, forcing_plies)
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        let child = &tail[0];
        line.moves[0] = Some(mv);
        let len = child.len.min(MAX_PLY - 1);
        line.moves[1..=len].copy_from_slice(&child.moves[..len]);
        line.len = len + 1;
    }

    fn reward_quiet(&mut self, side: Side, ply: usize, depth: i32, mv: Move, tried: &[Move]) {
        if self.killers[ply][0] != Some(mv) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(mv);
        }
        self.history.reward(side, depth * depth, mv, tried);
    }
}

/// The moves a leaf looks at: the king's moves that open a corner line
/// first (the most forcing: two lines win), then the captures.
fn forcing_moves(position: &Position, board: &Mailbox) -> ArrayVec<Move, MAX_MOVES> {
    let mut moves = ArrayVec::new();
    if board.side_to_move == Side::Defenders
        && let Some(king) = position.king()
    {
        board.for_each_king_destination(|to| {
            let mv = Move {
                from: king,
                to: square_of(to),
            };
            // The board's slides ignore the rules' squares; the rules have the last word.
            if board.open_corner_lines(to) != 0 && position.check(mv).is_ok() {
                moves.push(mv);
            }
        });
    }
    for mv in position.capturing_moves() {
        if !moves.contains(&mv) {
            moves.push(mv);
        }
    }
    moves
}
