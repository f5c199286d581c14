//! lonelybot's `do_hop` (lonecli/src/main.rs) on deals read from stdin, one a line:
//! `seed d0 d1 ... d51`, each card `rank*4+suit` in lonelybot's numbering (Card::new(rank, suit)),
//! the 28 pile cards first (pile i at i(i+1)/2.., bottom first), then the 24 deck cards in the order
//! they are drawn. Args: draw_step n_times limit. Prints `seed won seconds decisions visits` a
//! line (visits: the capped solves' positions, counted by patch_lonelybot.py's VISITS).
use lonelybot::card::Card;
use lonelybot::engine::SolitaireEngine;
use lonelybot::mcts_solver::pick_moves;
use lonelybot::pruning::NoPruner;
use lonelybot::shuffler::CardDeck;
use lonelybot::state::Solitaire;
use lonelybot::tracking::DefaultTerminateSignal;
use rand::prelude::*;
use std::io::BufRead;
use std::num::NonZeroU8;
use std::time::Instant;

fn ucb1(n_sucess: usize, n_visit: usize, n_total: usize) -> f64 {
    const C: f64 = 2.;
    if n_visit == 0 {
        f64::INFINITY
    } else {
        n_sucess as f64 / n_visit as f64 + C * ((n_total as f64).ln() / n_visit as f64).sqrt()
    }
}

fn do_hop(deck: &CardDeck, seed: u64, draw_step: NonZeroU8, n_times: usize, limit: usize) -> (bool, usize) {
    let mut game: SolitaireEngine<NoPruner> = Solitaire::new(deck, draw_step).into();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut decisions = 0;
    while !game.state().is_win() {
        let mut gg = game.state().clone();
        gg.hidden_clear();
        decisions += 1;
        if decisions > 400 {
            // lonelybot's do_hop has no end on some lost deals (it plays a card up and down
            // again forever, each a one-candidate decision): a lost game here
            return (false, decisions);
        }
        let best = pick_moves(&mut gg, &mut rng, n_times, limit, &DefaultTerminateSignal {}, ucb1);
        let Some(best) = best else {
            return (false, decisions);
        };
        if std::env::var("HOP_VERBOSE").is_ok() {
            eprintln!("decision {decisions}: {:?}", best);
        }
        for m in best {
            game.do_move(m);
        }
    }
    (true, decisions)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let draw: u8 = args[1].parse().unwrap();
    let n_times: usize = args[2].parse().unwrap();
    let limit: usize = args[3].parse().unwrap();
    let draw_step = NonZeroU8::new(draw).unwrap();
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let v: Vec<u64> = line.split_whitespace().map(|x| x.parse().unwrap()).collect();
        if v.len() != 53 {
            continue;
        }
        let deck: CardDeck = core::array::from_fn(|i| {
            let c = v[i + 1] as u8;
            Card::new(c / 4, c % 4)
        });
        let t = Instant::now();
        if n_times == 0 {
            let res = lonelybot::solver::solve(&mut Solitaire::new(&deck, draw_step)).0;
            let verdict = match res {
                lonelybot::solver::SearchResult::Solved => "won",
                lonelybot::solver::SearchResult::Unsolvable => "lost",
                _ => "unknown",
            };
            println!("{} {} {:.3}", v[0], verdict, t.elapsed().as_secs_f64());
            continue;
        }
        let (won, decisions) = do_hop(&deck, v[0], draw_step, n_times, limit);
        let visits = lonelybot::hop_solver::VISITS.swap(0, std::sync::atomic::Ordering::Relaxed);
        println!("{} {} {:.3} {} {}", v[0], u8::from(won), t.elapsed().as_secs_f64(), decisions, visits);
    }
}
