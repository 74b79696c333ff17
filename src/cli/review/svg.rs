//! The evaluation graph of a reviewed game as a self-contained SVG (no
//! script, no external file): the attackers' chance of winning at every
//! position, the area under it shaded, the mistakes marked where the graph
//! fell (each marker titled with its annotation, which a browser shows on
//! hover), and a legend with one marker per kind of mistake.

use std::fmt::Write;

use tafl::rules::Side;
use tafl::search::{MoveClass, PlyReview, ReviewSummary};

use super::{annotation, class_words};

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 420.0;
/// The plot's edges.
const LEFT: f64 = 70.0;
const RIGHT: f64 = 980.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 360.0;

/// The kinds of mistake marked, with their colours.
const MARKED: [(MoveClass, &str); 4] = [
    (MoveClass::Inaccuracy, "#d4a000"),
    (MoveClass::Mistake, "#e06c00"),
    (MoveClass::Blunder, "#c80000"),
    (MoveClass::MissedWin, "#7a1fa2"),
];

/// The class attribute of a kind of mistake: "missed-win".
fn css_class(class: MoveClass) -> String {
    class.name().replace('_', "-")
}

/// Text fit for XML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The attackers' chance at each position of the game as far as it was judged: before each
/// ply, then after the last.
fn attackers_chances(plies: &[PlyReview]) -> Vec<f64> {
    let attackers = |side: Side, chance: f64| match side {
        Side::Attackers => chance,
        Side::Defenders => 1.0 - chance,
    };
    let mut chances: Vec<f64> = plies
        .iter()
        .map(|ply| attackers(ply.side, ply.win_chance_before))
        .collect();
    if let Some(last) = plies.last() {
        chances.push(attackers(last.side, last.win_chance_after));
    }
    chances
}

/// The graph of `plies` (the review's judged plies) with its title, the game's result in words
/// and the summary.
pub fn graph(
    plies: &[PlyReview],
    summary: &ReviewSummary,
    first_mover: Side,
    title: &str,
    result: &str,
) -> String {
    let chances = attackers_chances(plies);
    let positions = chances.len().max(2) - 1;
    let x = |position: usize| LEFT + (RIGHT - LEFT) * position as f64 / positions as f64;
    let y = |chance: f64| BOTTOM - (BOTTOM - TOP) * chance;
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="13">"#
    );
    let _ = writeln!(
        svg,
        "<title>{}: the attackers' chance of winning, ply by ply</title>",
        escape(title)
    );
    let _ = writeln!(
        svg,
        r##"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r##"<rect class="plot" x="{LEFT}" y="{TOP}" width="{}" height="{}" fill="#eeeae2"/>"##,
        RIGHT - LEFT,
        BOTTOM - TOP
    );
    // The area under the curve: the attackers' share.
    let mut area = format!("M{LEFT:.1},{BOTTOM:.1}");
    let mut line = String::new();
    for (position, &chance) in chances.iter().enumerate() {
        let _ = write!(area, " L{:.1},{:.1}", x(position), y(chance));
        let _ = write!(line, "{:.1},{:.1} ", x(position), y(chance));
    }
    let _ = write!(
        area,
        " L{:.1},{BOTTOM:.1} Z",
        x(chances.len().saturating_sub(1))
    );
    let _ = writeln!(svg, r##"<path class="area" d="{area}" fill="#c9b99a"/>"##);
    // Grid: every quarter, the even line dashed.
    for quarter in 0..=4 {
        let chance = f64::from(quarter) / 4.0;
        let dash = if quarter == 2 {
            r#" stroke-dasharray="6 4""#
        } else {
            ""
        };
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{RIGHT}" y2="{y:.1}" stroke="#8a8070" stroke-width="0.6"{dash}/>"##,
            y = y(chance)
        );
        let _ = writeln!(
            svg,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{}%</text>"#,
            LEFT - 8.0,
            y(chance) + 4.0,
            quarter * 25
        );
    }
    // Plies along the bottom.
    let step = match positions {
        0..=60 => 10,
        61..=150 => 20,
        _ => 50,
    };
    for position in (0..=positions).step_by(step) {
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{position}</text>"#,
            x(position),
            BOTTOM + 18.0
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{}" text-anchor="middle">ply</text>"#,
        (LEFT + RIGHT) / 2.0,
        BOTTOM + 40.0
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}" font-weight="bold">Attackers' chance of winning</text>"#,
        LEFT,
        TOP - 24.0
    );
    let partial = if summary.partial {
        ", partial review"
    } else {
        ""
    };
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="{}">{}: {}{partial}; accuracy: attackers {:.0}, defenders {:.0}</text>"#,
        LEFT,
        TOP - 8.0,
        escape(title),
        escape(result),
        summary.accuracy.attackers,
        summary.accuracy.defenders
    );
    let _ = writeln!(
        svg,
        r##"<polyline class="graph" points="{}" fill="none" stroke="#2b2b2b" stroke-width="2" stroke-linejoin="round"/>"##,
        line.trim_end()
    );
    // The mistakes, where the graph fell: at the position after the move.
    for ply in plies.iter().filter(|ply| ply.class.is_error()) {
        let Some(&(_, colour)) = MARKED.iter().find(|(class, _)| *class == ply.class) else {
            continue;
        };
        let _ = writeln!(
            svg,
            r##"<circle class="marker {}" data-ply="{}" cx="{:.1}" cy="{:.1}" r="6" fill="{colour}" stroke="#ffffff" stroke-width="1.5"><title>{}</title></circle>"##,
            css_class(ply.class),
            ply.ply,
            x(ply.ply + 1),
            y(chances[ply.ply + 1]),
            escape(&annotation(ply, first_mover))
        );
    }
    // The legend: one marker per kind of mistake, with its count in this game.
    let mut legend_x = RIGHT - 470.0;
    for (class, colour) in MARKED {
        let count: u32 = summary.classes.iter().map(|counts| counts.get(class)).sum();
        let _ = writeln!(
            svg,
            r#"<circle class="legend {}" cx="{legend_x:.1}" cy="{}" r="6" fill="{colour}"/>"#,
            css_class(class),
            TOP - 28.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{}">{} ({count})</text>"#,
            legend_x + 10.0,
            TOP - 24.0,
            class_words(class)
        );
        legend_x += 118.0;
    }
    svg.push_str("</svg>\n");
    svg
}
