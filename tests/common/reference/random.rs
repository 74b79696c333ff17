//! Random play for the cross-checks: a deterministic generator, how random
//! play weighs moves, and starts made for the rare rules.

use super::*;

/// A tiny deterministic generator (xorshift64*), so every run plays the same games.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next number. The stream never ends, so it is no `Iterator`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

impl Board {
    /// How much random play should favour a move: captures, king moves,
    /// edge squares and squares next to the king make the rare rules
    /// (shieldwalls, forts, encirclements, king captures) actually happen.
    pub fn move_weight(&self, from: Sq, to: Sq) -> u64 {
        let piece = self.at(from).expect("a piece to move");
        let mover_side = side_of(piece);
        let mut weight = 2;
        let mut worth_a_probe = piece == Piece::King;
        let mut occupied_neighbours = 0;
        if piece == Piece::King {
            weight += 6;
            if self.is_edge(to) {
                weight += 12;
            }
        }
        if self.is_edge(to) {
            weight += 3;
        }
        for n in self.neighbours(to) {
            if n == from {
                continue;
            }
            match self.at(n) {
                Some(Piece::King) if mover_side == Side::Attackers => {
                    weight += 10;
                    worth_a_probe = true;
                }
                Some(p) if side_of(p) != mover_side => {
                    weight += 3;
                    worth_a_probe = true;
                }
                Some(_) if mover_side == Side::Defenders && self.is_edge(to) => weight += 2,
                _ => {}
            }
            occupied_neighbours += usize::from(self.at(n).is_some());
        }
        // Captures, escapes, forts, rings: only a move next to pieces can make them.
        if worth_a_probe || occupied_neighbours >= 2 {
            let mut probe = *self;
            if let Ok(captures) = probe.play(from, to) {
                weight += 20 * captures.len() as u64;
                if probe.outcome.is_over() {
                    weight += 30;
                }
            }
        }
        weight
    }

    /// A legal move picked at random, weighted by [`Board::move_weight`]
    /// (or uniformly when `weighted` is false).
    pub fn random_move(&self, rng: &mut Rng, weighted: bool) -> Option<(Sq, Sq)> {
        let moves = self.legal_moves();
        if moves.is_empty() {
            return None;
        }
        if !weighted {
            return Some(moves[rng.below(moves.len() as u64) as usize]);
        }
        let weights: Vec<u64> = moves.iter().map(|&(f, t)| self.move_weight(f, t)).collect();
        let mut pick = rng.below(weights.iter().sum());
        for (mv, w) in moves.iter().zip(&weights) {
            if pick < *w {
                return Some(*mv);
            }
            pick -= w;
        }
        unreachable!()
    }
}

impl Board {
    /// How many pieces the shieldwalls of a move would take (for statistics).
    pub fn shieldwall_count(&self, from: Sq, to: Sq) -> usize {
        let mut probe = *self;
        let piece = probe.at(from);
        probe.set(from, None);
        probe.set(to, piece);
        probe.shieldwall_captures(to).len()
    }
}

/// A random legal start of `size` for the cross-checks: pieces scattered with
/// random densities, the king often near an edge, either side to move.
pub fn random_setup(rng: &mut Rng, size: usize) -> String {
    let probe = Board::parse(&start_text(size), "copenhagen").expect("the start parses");
    let attack_percent = 8 + rng.below(25);
    let defend_percent = 3 + rng.below(15);
    let free: Vec<Sq> = probe
        .all_squares()
        .filter(|&sq| !probe.is_corner(sq) && !probe.is_throne(sq))
        .collect();
    let king = if rng.chance(40) {
        let edge: Vec<Sq> = free
            .iter()
            .copied()
            .filter(|&sq| probe.is_edge(sq))
            .collect();
        edge[rng.below(edge.len() as u64) as usize]
    } else {
        free[rng.below(free.len() as u64) as usize]
    };
    let (mut attackers, mut defenders) = (Vec::new(), Vec::new());
    for sq in free {
        if sq == king {
            continue;
        }
        let near_king = sq.file.abs_diff(king.file) <= 2 && sq.rank.abs_diff(king.rank) <= 2;
        let roll = rng.below(100);
        if roll < attack_percent {
            attackers.push(sq.to_string());
        } else if roll < attack_percent + defend_percent + if near_king { 25 } else { 0 } {
            defenders.push(sq.to_string());
        }
    }
    let side = if rng.chance(50) { 'a' } else { 'd' };
    position_text(
        size,
        &attackers.join(" "),
        &defenders.join(" "),
        &king.to_string(),
        side,
    )
}

/// Places pieces on an empty board of `size` where the rules allow them
/// (nothing on the throne or a corner, nothing on a taken square).
struct Sketch {
    board: Board,
}

impl Sketch {
    fn new(size: usize) -> Sketch {
        let board = Board {
            size,
            rules: Ruleset::Copenhagen,
            grid: [[None; 13]; 13],
            to_move: Side::Attackers,
            outcome: Outcome::Ongoing,
        };
        Sketch { board }
    }

    fn put(&mut self, file: isize, rank: isize, piece: Piece) -> bool {
        let Some(sq) = self.board.square(file, rank) else {
            return false;
        };
        if self.board.at(sq).is_some()
            || self.board.is_corner(sq)
            || (self.board.is_throne(sq) && piece != Piece::King)
        {
            return false;
        }
        self.board.set(sq, Some(piece));
        true
    }

    fn scatter(&mut self, rng: &mut Rng, piece: Piece, percent: u64) {
        for sq in self.board.all_squares() {
            if rng.chance(percent) {
                self.put(sq.file as isize, sq.rank as isize, piece);
            }
        }
    }

    fn finish(mut self, side: Side) -> String {
        self.board.to_move = side;
        self.board.text()
    }
}

/// A start where the attackers nearly close a ring around the king and some
/// defenders: one or two ring pieces stand back, ready to close it (rule 8).
pub fn ring_setup(rng: &mut Rng, size: usize) -> String {
    loop {
        let mut sketch = Sketch::new(size);
        let n = size as isize;
        let width = 1 + rng.below(3) as isize;
        let height = 1 + rng.below(3) as isize;
        let f0 = 2 + rng.below((n - 4 - width + 1) as u64) as isize;
        let r0 = 2 + rng.below((n - 4 - height + 1) as u64) as isize;
        let (f1, r1) = (f0 + width - 1, r0 + height - 1);
        // The ring: each side of the rectangle, outward direction.
        let mut ring: Vec<(isize, isize, isize, isize)> = Vec::new();
        for r in r0..=r1 {
            ring.push((f0 - 1, r, -1, 0));
            ring.push((f1 + 1, r, 1, 0));
        }
        for f in f0..=f1 {
            ring.push((f, r0 - 1, 0, -1));
            ring.push((f, r1 + 1, 0, 1));
        }
        let king_file = f0 + rng.below(width as u64) as isize;
        let king_rank = r0 + rng.below(height as u64) as isize;
        if !sketch.put(king_file, king_rank, Piece::King) {
            continue;
        }
        let gaps = if rng.chance(80) { 1 } else { 2 };
        let mut ok = true;
        for (i, &(file, rank, df, dr)) in ring.iter().enumerate() {
            if i < gaps * 3 && i % 3 == 0 {
                // stand back in line, two or three squares out
                let back = 2 + rng.below(2) as isize;
                sketch.put(file + df * back, rank + dr * back, Piece::Attacker);
            } else {
                ok &= sketch.put(file, rank, Piece::Attacker);
            }
        }
        if !ok {
            continue; // the ring would cross the throne
        }
        for f in f0..=f1 {
            for r in r0..=r1 {
                if rng.chance(35) {
                    sketch.put(f, r, Piece::Defender);
                }
            }
        }
        sketch.scatter(rng, Piece::Attacker, 4);
        if rng.chance(20) {
            sketch.scatter(rng, Piece::Defender, 2);
        }
        let side = if rng.chance(90) {
            Side::Attackers
        } else {
            Side::Defenders
        };
        return sketch.finish(side);
    }
}

/// A start with a row of pieces on an edge, each pinned by an enemy on its
/// inner side and closed at one end: one flanking move onto the edge closes
/// a shieldwall (rule 4). Sometimes an inner piece is missing, and
/// sometimes the king is in the row or among the inner pieces.
pub fn wall_setup(rng: &mut Rng, size: usize) -> String {
    loop {
        let mut sketch = Sketch::new(size);
        let n = size as isize;
        let wall_side = if rng.chance(50) {
            Side::Attackers
        } else {
            Side::Defenders
        };
        let (captor, victim) = match wall_side {
            Side::Attackers => (Piece::Defender, Piece::Attacker),
            Side::Defenders => (Piece::Attacker, Piece::Defender),
        };
        let length = 2 + rng.below(4) as isize;
        // Build along the bottom edge, then turn the board.
        let start = 1 + rng.below((n - 2 - length) as u64) as isize; // first run square (file)
        let mut cells: Vec<(isize, isize, Piece)> = Vec::new();
        let king_at = rng.below(length as u64 + 3) as isize;
        for i in 0..length {
            let file = start + i;
            let runner = if victim == Piece::Defender && i == king_at {
                Piece::King
            } else {
                victim
            };
            cells.push((file, 0, runner));
            if !rng.chance(8) {
                let inner = if captor == Piece::Defender && i == king_at {
                    Piece::King
                } else {
                    captor
                };
                cells.push((file, 1, inner));
            }
        }
        // Closed on the left unless it touches the corner; the flanker comes to the right.
        if start > 1 && !rng.chance(8) {
            cells.push((start - 1, 0, captor));
        }
        let flank_file = start + length;
        if flank_file < n - 1 {
            let reach = 2 + rng.below(3) as isize;
            cells.push(if rng.chance(50) {
                (flank_file, reach, captor)
            } else {
                ((flank_file + reach).min(n - 2), 0, captor)
            });
        }
        let turn = rng.below(4);
        let mut placed_king = false;
        for &(file, rank, piece) in &cells {
            let (f, r) = match turn {
                0 => (file, rank),
                1 => (n - 1 - rank, file),
                2 => (n - 1 - file, n - 1 - rank),
                _ => (rank, n - 1 - file),
            };
            let ok = sketch.put(f, r, piece);
            placed_king |= ok && piece == Piece::King;
        }
        if !placed_king {
            let (kf, kr) = (
                rng.below(size as u64) as isize,
                rng.below(size as u64) as isize,
            );
            if !sketch.put(kf, kr, Piece::King) {
                continue;
            }
        }
        sketch.scatter(rng, Piece::Attacker, 4);
        sketch.scatter(rng, Piece::Defender, 3);
        let side = match captor {
            Piece::Attacker => Side::Attackers,
            _ => Side::Defenders,
        };
        return sketch.finish(side);
    }
}
