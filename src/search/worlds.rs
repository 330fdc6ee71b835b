//! Worlds consistent with an observation (`casino_coach/search/worlds.py`, which explains them and
//! cites the rules): the hidden cards dealt to the other hands and the stock, every such deal equally
//! likely except that a seat owning a build must hold a card that takes it (the must-hold rule,
//! rules.md 1.8.2), and a position typed without every played card puts the surplus in `gone`.
//!
//! A port, world for world: the same worlds in the same order, the same probabilities to the last
//! bit (the same integer counts, divided once with the same rounding), the same error messages, and
//! for the random parts the same draws from a CPython-equal generator (`engine::rng::Random`), so a
//! generator in the state a Python one is in deals the Python one's worlds.

use crate::engine::cards::{iter_cards, twin_groups, Mask, ACES_MASK};
use crate::engine::observation::Observation;
use crate::engine::rng::Random;
use crate::engine::rules::{AceValue, Rules};
use crate::engine::state::{State, MAX_SEATS};

/// `_REJECTION_TRIES`: whole shuffles tried before the owners' hands are drawn first.
const REJECTION_TRIES: u32 = 2000;
/// `_HAND_TRIES`: draws of the owners' hands before giving up.
const HAND_TRIES: u32 = 400_000;
/// The places a card can go: the hands, the stock, the cards gone.
const MAX_PLACES: usize = MAX_SEATS + 2;

/// What the reference raises as `SearchError`, with its message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorldsError(pub String);

impl std::fmt::Display for WorldsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

type Result<T> = std::result::Result<T, WorldsError>;

fn fail<T>(message: String) -> Result<T> {
    Err(WorldsError(message))
}

/// One placement of the hidden cards, with its probability among the consistent worlds (`World`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct World {
    /// Every seat's full hand (the observer's own included); 0 past `nplayers`.
    pub hands: [Mask; MAX_SEATS],
    pub stock: Mask,
    /// Surplus unseen cards taken as captured earlier by nobody known.
    pub gone: Mask,
    pub probability: f64,
}

/// What must be dealt (`Slots`): the free cards and how many go to each seat, the stock, and away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slots {
    /// Unseen cards not known to be in a particular hand.
    pub free: Mask,
    /// Cards still to place in each seat's hand (0 for the observer).
    pub per_seat: [u32; MAX_SEATS],
    pub stock: u32,
    pub gone: u32,
}

/// The free cards and the places they fill; an error when the counts cannot match (`slots`).
pub fn slots(obs: &Observation) -> Result<Slots> {
    let n = obs.nplayers();
    let seat = obs.seat as usize;
    let mut known_others = 0;
    let mut per_seat = [0u32; MAX_SEATS];
    for (s, slot) in per_seat.iter_mut().enumerate().take(n) {
        if s == seat {
            continue;
        }
        let k = obs.known[s];
        if k & !obs.unseen != 0 {
            return fail(format!("seat {s} is known to hold a card that is not unseen"));
        }
        let need = obs.hand_sizes[s] as i64 - k.count_ones() as i64;
        if need < 0 {
            return fail(format!(
                "seat {s} holds {} cards but more are known in its hand",
                obs.hand_sizes[s]
            ));
        }
        known_others |= k;
        *slot = need as u32;
    }
    let free = obs.unseen & !known_others;
    if obs.hand & obs.unseen != 0 {
        return fail("a card of the hand to search is also listed as unseen".to_owned());
    }
    if obs.hand.count_ones() != obs.hand_sizes[seat] {
        return fail(format!(
            "seat {seat} holds {} cards, but its hand size is {}",
            obs.hand.count_ones(),
            obs.hand_sizes[seat]
        ));
    }
    let need = per_seat.iter().map(|&k| k as i64).sum::<i64>() + obs.stock_count as i64;
    let gone = free.count_ones() as i64 - need;
    if gone < 0 {
        return fail(format!(
            "{} cards are unseen, but the other hands and the stock need {need}: the position's \
             counts do not add up",
            free.count_ones()
        ));
    }
    Ok(Slots {
        free,
        per_seat,
        stock: obs.stock_count,
        gone: gone as u32,
    })
}

/// `math.comb(n, k)` for the counts of a pack (n <= 64).
fn comb(n: u32, k: u32) -> u128 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // Exact at every step: c * (n - i) / (i + 1) is C(n, i + 1).
        c = c * (n - i) as u128 / (i + 1) as u128;
    }
    c
}

/// How many placements of the hidden cards fit the counts, before the must-hold filter
/// (`count_worlds`). At most 6^52, so it fits.
pub fn count_worlds(obs: &Observation) -> Result<u128> {
    let sl = slots(obs)?;
    let mut left = sl.free.count_ones();
    let mut total: u128 = 1;
    for &k in sl.per_seat[..obs.nplayers()].iter().chain(&[sl.stock]) {
        total = total
            .checked_mul(comb(left, k))
            .expect("a count of placements of at most 52 cards fits 128 bits");
        left = left.saturating_sub(k);
    }
    Ok(total)
}

/// The capture values (as bits) of every card of `cards`.
fn capture_values(rules: &Rules, cards: Mask) -> u64 {
    iter_cards(cards).fold(0, |m, c| m | rules.capture_masks[c as usize] as u64)
}

/// Builds of 1 and of 14 take two aces (one card per build value, movegen).
fn needs_two_aces(rules: &Rules, values: u64) -> bool {
    values & (1 << 1) != 0 && values & (1 << 14) != 0 && rules.ace_value == AceValue::OneOrFourteen
}

/// (seat, capture values it must hold one of, as bits) for every other seat owning a build, by seat
/// (`_must_hold`).
pub fn must_hold(obs: &Observation) -> Vec<(usize, u64)> {
    let mut need = [0u64; MAX_SEATS];
    for b in obs.builds.as_slice() {
        if b.owner != obs.seat && (b.owner as usize) < obs.nplayers() {
            need[b.owner as usize] |= 1 << b.value;
        }
    }
    (0..obs.nplayers())
        .filter(|&s| need[s] != 0)
        .map(|s| (s, need[s]))
        .collect()
}

/// Whether `hand` holds a card for each of `values` (`_holds_all`).
pub fn holds_all(rules: &Rules, hand: Mask, values: u64) -> bool {
    let have = capture_values(rules, hand);
    if needs_two_aces(rules, values) {
        return values & !have == 0 && (hand & ACES_MASK).count_ones() >= 2;
    }
    values & !have == 0
}

fn holds_every(rules: &Rules, hands: &[Mask; MAX_SEATS], constraints: &[(usize, u64)]) -> bool {
    constraints.iter().all(|&(s, v)| holds_all(rules, hands[s], v))
}

/// An error when a build owner cannot hold what takes its builds (`_check_possible`).
pub fn check_possible(
    rules: &Rules,
    obs: &Observation,
    sl: &Slots,
    constraints: &[(usize, u64)],
) -> Result<()> {
    for &(seat, values) in constraints {
        let pool = sl.free | obs.known[seat];
        let missing = values & !capture_values(rules, pool);
        if missing != 0 || obs.hand_sizes[seat] == 0 {
            let what = if missing != 0 {
                (0..64)
                    .filter(|v| missing & (1 << v) != 0)
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                "any value".to_owned()
            };
            return fail(format!(
                "seat {seat} owns a build but cannot hold a card to take it ({what}): every such \
                 card has been seen elsewhere"
            ));
        }
        if needs_two_aces(rules, values) {
            let aces = (pool & ACES_MASK).count_ones();
            let why = if aces < 2 {
                if aces > 0 {
                    "only one ace is left for it to hold"
                } else {
                    "no ace is left for it to hold"
                }
            } else if obs.hand_sizes[seat] < 2 {
                "it holds one card"
            } else {
                continue;
            };
            return fail(format!(
                "seat {seat} owns builds of 1 and of 14 but cannot hold the two aces they take: {why}"
            ));
        }
    }
    Ok(())
}

/// The must-hold constraints of `obs`, checked possible.
fn checked_constraints(rules: &Rules, obs: &Observation, sl: &Slots) -> Result<Vec<(usize, u64)>> {
    let constraints = must_hold(obs);
    if !constraints.is_empty() {
        check_possible(rules, obs, sl, &constraints)?;
    }
    Ok(constraints)
}

/// The hand a world starts `seat` from: the own hand, or the cards known to be there.
fn base(obs: &Observation, seat: usize) -> Mask {
    if seat == obs.seat as usize {
        obs.hand
    } else {
        obs.known[seat]
    }
}

fn mask_of(cards: &[u8]) -> Mask {
    cards.iter().fold(0, |m, &c| m | 1 << c)
}

/// `cards[from..to]` as Python slices it (clamped to the list).
fn slice(cards: &[u8], from: usize, to: usize) -> &[u8] {
    let n = cards.len();
    &cards[from.min(n)..to.min(n)]
}

/// The world of `cards` cut in order into the places to fill (`_cut`).
fn cut(obs: &Observation, sl: &Slots, cards: &[u8]) -> World {
    let mut hands = [0; MAX_SEATS];
    let mut pos = 0;
    for (s, hand) in hands.iter_mut().enumerate().take(obs.nplayers()) {
        let k = sl.per_seat[s] as usize;
        *hand = base(obs, s) | mask_of(slice(cards, pos, pos + k));
        pos += k;
    }
    let k = sl.stock as usize;
    let stock = mask_of(slice(cards, pos, pos + k));
    pos += k;
    let gone = mask_of(slice(cards, pos, cards.len()));
    World {
        hands,
        stock,
        gone,
        probability: 0.0,
    }
}

/// Calls `f` with each `k`-card combination of `cards` as a mask, in `itertools.combinations`' order.
fn for_combinations(cards: &[u8], k: usize, mut f: impl FnMut(Mask)) {
    let n = cards.len();
    if k > n {
        return;
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        f(idx.iter().fold(0, |m, &i| m | 1 << cards[i]));
        let Some(i) = (0..k).rev().find(|&i| idx[i] != i + n - k) else {
            return;
        };
        idx[i] += 1;
        for j in i + 1..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// Every consistent world, each with its probability (they are equally likely), in the reference's
/// order (`enumerate_worlds`).
pub fn enumerate_worlds(rules: &Rules, obs: &Observation) -> Result<Vec<World>> {
    let sl = slots(obs)?;
    let constraints = checked_constraints(rules, obs, &sl)?;
    let mut out = Vec::new();
    let mut hands = [0; MAX_SEATS];
    deal_seats(obs, &sl, 0, sl.free, &mut hands, &mut |hands, rest| {
        if !holds_every(rules, hands, &constraints) {
            return;
        }
        if sl.gone == 0 {
            out.push((*hands, rest, 0));
        } else {
            let cards: Vec<u8> = iter_cards(rest).collect();
            for_combinations(&cards, sl.stock as usize, |stock| {
                out.push((*hands, stock, rest & !stock))
            });
        }
    });
    if out.is_empty() {
        return fail("no world is consistent with the position".to_owned());
    }
    let p = 1.0 / out.len() as f64;
    Ok(out
        .into_iter()
        .map(|(hands, stock, gone)| World {
            hands,
            stock,
            gone,
            probability: p,
        })
        .collect())
}

/// `_deal_seats`: each way to fill the hands from `seat` on, with the free cards left.
fn deal_seats(
    obs: &Observation,
    sl: &Slots,
    seat: usize,
    free: Mask,
    hands: &mut [Mask; MAX_SEATS],
    f: &mut dyn FnMut(&[Mask; MAX_SEATS], Mask),
) {
    if seat == obs.nplayers() {
        f(hands, free);
        return;
    }
    let b = base(obs, seat);
    let k = sl.per_seat[seat] as usize;
    if k == 0 {
        hands[seat] = b;
        deal_seats(obs, sl, seat + 1, free, hands, f);
        return;
    }
    let cards: Vec<u8> = iter_cards(free).collect();
    for_combinations(&cards, k, |m| {
        hands[seat] = b | m;
        deal_seats(obs, sl, seat + 1, free & !m, hands, f);
    });
}

// ------------------------------------------------------------------------------------------------
// Classes of worlds: worlds that differ only by which of two unseen twins lies where (worlds.py).

/// The free cards in the pieces a class tells apart (`_items`): each group of free twins (two or
/// more), and every other free card alone, each lowest first.
fn items(sl: &Slots) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = sl.free;
    for both in twin_groups(sl.free) {
        out.push(iter_cards(both).collect());
        rest &= !both;
    }
    out.extend(iter_cards(rest).map(|c| vec![c]));
    out
}

/// `_splits`: every way to put `n` alike cards into the places from `start` on, at most `caps[p]`
/// into place `p`, written into `split` (the places before `start` are the caller's); `f` returns
/// false to stop, and so does this.
fn splits(
    n: u32,
    caps: &[u32; MAX_PLACES],
    places: usize,
    start: usize,
    split: &mut [u32; MAX_PLACES],
    f: &mut dyn FnMut(&[u32; MAX_PLACES]) -> bool,
) -> bool {
    if n == 0 {
        split[start..places].fill(0);
        return f(split);
    }
    if start == places - 1 {
        if n <= caps[start] {
            split[start] = n;
            return f(split);
        }
        return true;
    }
    for k in (0..=n.min(caps[start])).rev() {
        split[start] = k;
        if !splits(n - k, caps, places, start + 1, split, f) {
            return false;
        }
    }
    true
}

/// `_place`: every class of placements of `items[i..]` into what is left of the places, as the cards
/// each place gets in the class's canonical world and how many worlds it stands for; `f` returns
/// false to stop, and so does this.
fn place(
    items: &[Vec<u8>],
    i: usize,
    caps: [u32; MAX_PLACES],
    places: usize,
    masks: [Mask; MAX_PLACES],
    ways: u128,
    f: &mut dyn FnMut(&[Mask; MAX_PLACES], u128) -> bool,
) -> bool {
    if i == items.len() {
        return f(&masks, ways);
    }
    let cards = &items[i];
    let mut split = [0; MAX_PLACES];
    splits(cards.len() as u32, &caps, places, 0, &mut split, &mut |split| {
        let mut placed = masks;
        let mut left = caps;
        let mut pos = 0;
        let mut mult = ways;
        let mut n = cards.len() as u32;
        for p in 0..places {
            let k = split[p];
            if k > 0 {
                placed[p] |= mask_of(&cards[pos..pos + k as usize]);
                pos += k as usize;
                left[p] -= k;
                mult *= comb(n, k);
                n -= k;
            }
        }
        place(items, i + 1, left, places, placed, mult, f)
    })
}

/// `_classes`: calls `f` with every class of placements of the free cards (before must-hold), as the
/// cards each place gets (the hands, the stock, the cards gone) and how many worlds it stands for,
/// until `f` returns false.
fn classes(sl: &Slots, nplayers: usize, f: &mut dyn FnMut(&[Mask; MAX_PLACES], u128) -> bool) {
    let items = items(sl);
    let places = nplayers + 2;
    let mut caps = [0; MAX_PLACES];
    caps[..nplayers].copy_from_slice(&sl.per_seat[..nplayers]);
    caps[nplayers] = sl.stock;
    caps[nplayers + 1] = sl.gone;
    place(&items, 0, caps, places, [0; MAX_PLACES], 1, f);
}

/// How many classes of worlds fit the counts (before the must-hold filter), counted up to
/// `limit + 1` (`count_classes`).
pub fn count_classes(obs: &Observation, limit: i64) -> Result<u64> {
    let sl = slots(obs)?;
    // A class stands for at most g! worlds per group of g free twins (their orders), so more than
    // `limit` times that many worlds are more than `limit` classes, and the count stops where the
    // listing would (`limit + 1`) without listing them: a first deal has millions.
    if let Ok(limit) = u64::try_from(limit) {
        let most = twin_groups(sl.free)
            .map(|g| (1..=g.count_ones() as u128).product::<u128>())
            .fold(1u128, u128::saturating_mul);
        if count_worlds(obs)? > (limit as u128).saturating_mul(most) {
            return Ok(limit + 1);
        }
    }
    let mut n: u64 = 0;
    classes(&sl, obs.nplayers(), &mut |_, _| {
        n += 1;
        (n as i128) <= limit as i128
    });
    Ok(n)
}

/// One world of every class consistent with `obs` (its canonical world), each with the share of the
/// consistent worlds its class holds (`world_classes`).
pub fn world_classes(rules: &Rules, obs: &Observation) -> Result<Vec<World>> {
    let sl = slots(obs)?;
    let constraints = checked_constraints(rules, obs, &sl)?;
    let n = obs.nplayers();
    let mut found: Vec<(World, u128)> = Vec::new();
    let mut total: u128 = 0;
    classes(&sl, n, &mut |masks, ways| {
        let mut hands = [0; MAX_SEATS];
        for (s, hand) in hands.iter_mut().enumerate().take(n) {
            *hand = base(obs, s) | masks[s];
        }
        if holds_every(rules, &hands, &constraints) {
            let w = World {
                hands,
                stock: masks[n],
                gone: masks[n + 1],
                probability: 0.0,
            };
            found.push((w, ways));
            total += ways;
        }
        true
    });
    if found.is_empty() {
        return fail("no world is consistent with the position".to_owned());
    }
    Ok(found
        .into_iter()
        .map(|(w, ways)| World {
            probability: true_divide(ways, total),
            ..w
        })
        .collect())
}

/// `a / b` of two Python ints: the quotient correctly rounded to the nearest double, ties to even
/// (CPython's `long_true_divide`). `b` is positive and below 2^126.
pub fn true_divide(a: u128, b: u128) -> f64 {
    const EXACT: u128 = 1 << 53;
    if a < EXACT && b < EXACT {
        return a as f64 / b as f64; // both exact, and IEEE division rounds correctly
    }
    if a == 0 {
        return 0.0;
    }
    // The quotient to 55 significant bits (53, a guard and a round bit), the rest as a sticky bit:
    // value = mant * 2^-exp.
    let mut mant = a / b;
    let mut r = a % b;
    let mut exp: i32 = 0;
    let mut sticky = false;
    while mant >= 1 << 55 {
        sticky |= mant & 1 != 0;
        mant >>= 1;
        exp -= 1;
    }
    while mant < 1 << 54 {
        r <<= 1;
        mant <<= 1;
        if r >= b {
            r -= b;
            mant |= 1;
        }
        exp += 1;
    }
    sticky |= r != 0;
    let low = mant & 3;
    let mut top = mant >> 2;
    if low > 2 || (low == 2 && (sticky || top & 1 == 1)) {
        top += 1;
    }
    let scale = f64::from_bits(((1023 + 2 - exp) as u64) << 52);
    top as f64 * scale
}

/// Maps a world to the canonical world of its class (`Canon`): within each group of free twins, the
/// lowest cards go to the first places (the hands in seat order, the stock, the cards gone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Canon {
    /// Per group of two or more free twins, its cards, lowest first.
    pub groups: Vec<Vec<u8>>,
}

impl Canon {
    pub fn of(obs: &Observation) -> Result<Canon> {
        let sl = slots(obs)?;
        Ok(Canon {
            groups: items(&sl).into_iter().filter(|g| g.len() > 1).collect(),
        })
    }

    /// The canonical world of `world`'s class (the same probability), for a world of `nplayers`.
    pub fn world(&self, world: &World, nplayers: usize) -> World {
        let mut w = *world;
        for cards in &self.groups {
            let group = mask_of(cards);
            let mut pos = 0;
            for hand in w.hands.iter_mut().take(nplayers) {
                let k = (*hand & group).count_ones() as usize;
                if k > 0 {
                    *hand = (*hand & !group) | mask_of(slice(cards, pos, pos + k));
                    pos += k;
                }
            }
            let k = (w.stock & group).count_ones() as usize;
            w.stock = (w.stock & !group) | mask_of(slice(cards, pos, pos + k));
            pos += k;
            w.gone = (w.gone & !group) | mask_of(slice(cards, pos, cards.len()));
        }
        w
    }
}

/// The full state of the round in `world` (`world_state`).
pub fn world_state(obs: &Observation, world: &World) -> State {
    State {
        hands: world.hands,
        nplayers: obs.nplayers,
        loose: obs.loose,
        builds: obs.builds,
        captured: obs.captured,
        sweeps: obs.sweeps,
        to_move: obs.to_move,
        last_capturer: obs.last_capturer,
        stock: world.stock,
        more: obs.stock_count > 0,
        dealer: obs.dealer,
        nsides: obs.nsides,
        set_aside: obs.set_aside | world.gone,
    }
}

// ------------------------------------------------------------------------------------------------
// Random worlds: the reference's draws, in its order, from a generator in the reference's state.

/// A world drawn uniformly from those consistent with `obs`, must-hold included (`sample_world`):
/// whole shuffles of the free cards, cut into the places, until the build owners hold their cards;
/// then the owners' hands first (`owners_first`).
pub fn sample_world(rules: &Rules, obs: &Observation, rng: &mut Random) -> Result<World> {
    Sampler::new(rules, obs)?.draw(rules, obs, rng)
}

/// What `sample_world` works out of an observation before it draws: its slots, the build owners'
/// constraints (checked) and the free cards in order, with a list to shuffle them in. The draws in
/// proportion to the evidence reject most of theirs, and drew them each from scratch, allocating
/// as much as they shuffled.
#[derive(Clone, Debug)]
pub struct Sampler {
    sl: Slots,
    constraints: Vec<(usize, u64)>,
    free: Vec<u8>,
    cards: Vec<u8>,
}

impl Sampler {
    /// The sampler of `obs`'s worlds; the errors `sample_world` raises before it draws.
    pub fn new(rules: &Rules, obs: &Observation) -> Result<Sampler> {
        let sl = slots(obs)?;
        let constraints = checked_constraints(rules, obs, &sl)?;
        let free: Vec<u8> = iter_cards(sl.free).collect();
        Ok(Sampler {
            sl,
            constraints,
            cards: free.clone(),
            free,
        })
    }

    /// `sample_world` of the observation this sampler was made for (`obs`): the free cards from
    /// their order, shuffled whole until the build owners hold their cards, then the owners' hands
    /// first; the same draws from `rng`.
    pub fn draw(&mut self, rules: &Rules, obs: &Observation, rng: &mut Random) -> Result<World> {
        self.cards.copy_from_slice(&self.free);
        for _ in 0..REJECTION_TRIES {
            rng.shuffle(&mut self.cards);
            let w = cut(obs, &self.sl, &self.cards);
            if holds_every(rules, &w.hands, &self.constraints) {
                return Ok(w);
            }
        }
        owners_first(rules, obs, &self.sl, &self.constraints, &self.cards, rng)
    }
}

/// `_owners_first`: draw only the owners' hands (`Random.sample` of the free cards, in the order of
/// `cards`) until each holds its capture cards, then deal the rest from a fresh shuffle.
fn owners_first(
    rules: &Rules,
    obs: &Observation,
    sl: &Slots,
    constraints: &[(usize, u64)],
    cards: &[u8],
    rng: &mut Random,
) -> Result<World> {
    let drawn: usize = constraints.iter().map(|&(s, _)| sl.per_seat[s] as usize).sum();
    for _ in 0..HAND_TRIES {
        let pick = rng
            .sample(cards, drawn)
            .expect("the owners' hands take no more than the free cards");
        let mut pos = 0;
        let mut all = true;
        for &(seat, values) in constraints {
            let k = sl.per_seat[seat] as usize;
            let mine = &pick[pos..pos + k];
            pos += k;
            if !holds_all(rules, obs.known[seat] | mask_of(mine), values) {
                all = false;
                break;
            }
        }
        if !all {
            continue;
        }
        let taken = mask_of(&pick);
        let mut rest: Vec<u8> = cards.iter().copied().filter(|&c| taken & 1 << c == 0).collect();
        rng.shuffle(&mut rest);
        let mut order: Vec<u8> = Vec::with_capacity(cards.len());
        let mut pos = 0;
        let mut owner_pos = 0;
        for seat in 0..obs.nplayers() {
            if constraints.iter().any(|&(s, _)| s == seat) {
                let k = sl.per_seat[seat] as usize;
                // The owners' picks lie in `pick` in the order of the constraints (by seat).
                order.extend_from_slice(&pick[owner_pos..owner_pos + k]);
                owner_pos += k;
            } else {
                let k = sl.per_seat[seat] as usize;
                order.extend_from_slice(slice(&rest, pos, pos + k));
                pos += k.min(rest.len().saturating_sub(pos));
            }
        }
        order.extend_from_slice(slice(&rest, pos, rest.len()));
        return Ok(cut(obs, sl, &order));
    }
    fail("no consistent world found: the build owners' capture cards are too unlikely".to_owned())
}

/// Every consistent world, shuffled, each once in balanced passes (`in_passes`, which explains
/// them): a pass takes, in their order, the worlds that deal none of the free cards to a seat that an
/// earlier world of the pass dealt it to, and the next pass goes over the worlds left. In their order
/// where an owner of a build must hold a card. Lazy as the reference's generator is: a pass is made
/// as far as its worlds are asked for.
#[derive(Clone, Debug)]
pub struct InPasses {
    free: Mask,
    per_seat: [u32; MAX_SEATS],
    /// The seats dealt free cards; none where the worlds keep their order.
    others: Vec<usize>,
    rest: Vec<World>,
    later: Vec<World>,
    at: usize,
    taken: [Mask; MAX_SEATS],
}

impl InPasses {
    /// The worlds of `obs`, `worlds` (every consistent one, shuffled), in passes.
    pub fn new(obs: &Observation, worlds: Vec<World>) -> Result<InPasses> {
        let sl = slots(obs)?;
        let others = if must_hold(obs).is_empty() {
            (0..obs.nplayers()).filter(|&s| sl.per_seat[s] > 0).collect()
        } else {
            Vec::new()
        };
        Ok(InPasses {
            free: sl.free,
            per_seat: sl.per_seat,
            others,
            rest: worlds,
            later: Vec::new(),
            at: 0,
            taken: [0; MAX_SEATS],
        })
    }

    /// The next world; None once every one has come.
    pub fn next_world(&mut self) -> Option<World> {
        loop {
            if self.at == self.rest.len() {
                if self.later.is_empty() {
                    return None;
                }
                std::mem::swap(&mut self.rest, &mut self.later);
                self.later.clear();
                self.at = 0;
                self.taken = [0; MAX_SEATS];
            }
            let w = self.rest[self.at];
            self.at += 1;
            if self.others.iter().any(|&s| w.hands[s] & self.taken[s] != 0) {
                self.later.push(w);
                continue;
            }
            for &s in &self.others {
                self.taken[s] |= w.hands[s] & self.free;
            }
            // A pass none of the worlds left can join: a seat has fewer free cards left than it takes.
            let full = self
                .others
                .iter()
                .any(|&s| (self.free & !self.taken[s]).count_ones() < self.per_seat[s]);
            if full {
                self.later.extend_from_slice(&self.rest[self.at..]);
                self.at = self.rest.len();
            }
            return Some(w);
        }
    }
}

/// The endless stream of `balanced_passes`: worlds drawn like `sample_world`, each uniform over the
/// consistent ones, balanced by shuffling the free cards once per pass and cutting them into one
/// block per world; each with the number of its pass. Lazy as the reference's generator is: each
/// `next` draws what the reference draws before it yields that world, no more.
#[derive(Clone, Debug)]
pub struct BalancedPasses {
    obs: Observation,
    setup: Result<(Slots, Vec<(usize, u64)>)>,
    cards: Vec<u8>,
    size: usize,
    blocks: usize,
    npass: u64,
    in_pass: bool,
    block: usize,
    found: bool,
}

impl BalancedPasses {
    /// The stream for `obs`. Like the generator, it raises its errors on the first world.
    pub fn new(rules: &Rules, obs: &Observation) -> BalancedPasses {
        let setup = slots(obs).and_then(|sl| {
            let constraints = checked_constraints(rules, obs, &sl)?;
            Ok((sl, constraints))
        });
        let (cards, size) = match &setup {
            Ok((sl, _)) => (
                iter_cards(sl.free).collect::<Vec<u8>>(),
                sl.per_seat.iter().sum::<u32>() as usize,
            ),
            Err(_) => (Vec::new(), 0),
        };
        let blocks = cards.len().checked_div(size).unwrap_or(0);
        BalancedPasses {
            obs: *obs,
            setup,
            cards,
            size,
            blocks,
            npass: 0,
            in_pass: false,
            block: 0,
            found: false,
        }
    }

    /// The next world and the number of its pass (from 1), drawing from `rng`.
    pub fn next_world(&mut self, rules: &Rules, rng: &mut Random) -> Result<(World, u64)> {
        let (sl, constraints) = self.setup.clone()?;
        let obs = &self.obs;
        loop {
            if !self.in_pass {
                self.npass += 1;
                if self.blocks < 2 {
                    return Ok((sample_world(rules, obs, rng)?, self.npass));
                }
                rng.shuffle(&mut self.cards);
                self.found = false;
                self.block = 0;
                self.in_pass = true;
            }
            while self.block < self.blocks {
                let (b, size) = (self.block, self.size);
                self.block += 1;
                let mut order: Vec<u8> = self.cards[b * size..(b + 1) * size].to_vec();
                let mut rest: Vec<u8> = self.cards[..b * size].to_vec();
                rest.extend_from_slice(&self.cards[(b + 1) * size..]);
                rng.shuffle(&mut rest);
                order.extend_from_slice(&rest);
                let w = cut(obs, &sl, &order);
                if holds_every(rules, &w.hands, &constraints) {
                    self.found = true;
                    return Ok((w, self.npass));
                }
            }
            self.in_pass = false;
            if !self.found {
                let w = owners_first(rules, obs, &sl, &constraints, &self.cards, rng)?;
                return Ok((w, self.npass));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cards::card;
    use crate::engine::state::{Build, Builds};

    /// Seat 0 of two sees its hand; seat 1 holds two of four unseen cards, the stock none.
    fn two_hidden() -> Observation {
        let unseen = (1 << card(4, 0)) | (1 << card(4, 1)) | (1 << card(6, 0)) | (1 << card(8, 3));
        Observation {
            seat: 0,
            hand: 1 << card(2, 3),
            loose: 1 << card(12, 1),
            builds: Builds::default(),
            captured: [0; MAX_SEATS],
            sweeps: [0; MAX_SEATS],
            to_move: 0,
            last_capturer: -1,
            dealer: 1,
            nsides: 2,
            nplayers: 2,
            hand_sizes: [1, 2, 0, 0],
            stock_count: 0,
            unseen,
            known: [1 << card(2, 3), 0, 0, 0],
            set_aside: 0,
        }
    }

    #[test]
    fn true_divide_rounds_as_python_does() {
        // Python's int / int, for ints past 2^53 (values from CPython 3.11).
        let cases: [(u128, u128, f64); 6] = [
            (10u128.pow(20), 3 * 10u128.pow(20) + 7, 0.3333333333333333),
            ((1 << 60) + 1, (1 << 61) + 3, 0.5),
            ((1 << 53) + 1, 1 << 53, 1.0),                // a tie, to even
            ((1 << 53) + 3, 1 << 53, 1.0000000000000004), // a tie, to even (up)
            (7, (1 << 100) + 1, 5.5220263365470826e-30),
            (3u128.pow(70), 5u128.pow(45), 88.07195468389038),
        ];
        for (a, b, want) in cases {
            assert_eq!(true_divide(a, b).to_bits(), want.to_bits(), "{a} / {b}");
        }
        assert_eq!(true_divide(1, 3), 1.0 / 3.0);
    }

    #[test]
    fn worlds_without_replacement_are_every_world_once_as_its_class() {
        use crate::engine::rng::Random;
        use crate::search::race::{Dealing, Worlds};
        let obs = two_hidden();
        let rules = Rules::classic();
        let canon = Canon::of(&obs).unwrap();
        let every = enumerate_worlds(&rules, &obs).unwrap();
        let dealing = Dealing::Shuffled { canonical: true };
        let mut worlds = Worlds::new(&rules, &obs, Random::new(7), dealing).unwrap();
        assert_eq!(worlds.population, Some(6));
        assert!(worlds.shuffled);
        let mut drawn: Vec<World> = (0..6).map(|_| worlds.next_world().unwrap().0).collect();
        assert!(worlds.next_world().is_err(), "a seventh world of six");
        let mut want: Vec<World> = every.iter().map(|w| canon.world(w, 2)).collect();
        let key = |w: &World| w.hands;
        drawn.sort_by_key(key);
        want.sort_by_key(key);
        assert_eq!(drawn, want);
        assert!(drawn.iter().all(|w| w.probability == 1.0 / 6.0));
    }

    #[test]
    fn worlds_without_replacement_come_in_passes_that_deal_each_card_once() {
        use crate::engine::rng::Random;
        use crate::search::race::{Dealing, Worlds};
        // Two of four free cards to the other hand: each pass is two worlds that share no card.
        let obs = two_hidden();
        let rules = Rules::classic();
        for seed in 0..20 {
            let dealing = Dealing::Shuffled { canonical: false };
            let mut worlds = Worlds::new(&rules, &obs, Random::new(seed), dealing).unwrap();
            let drawn: Vec<Mask> = (0..6).map(|_| worlds.next_world().unwrap().0.hands[1]).collect();
            assert!(worlds.next_world().is_err(), "a seventh world of six");
            for pass in drawn.chunks(2) {
                assert_eq!(pass[0] & pass[1], 0, "seed {seed}: {drawn:x?}");
            }
            let mut sorted = drawn.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), 6);
        }
        // Where the other hand owns a build it must keep a card for (a 5), the shuffled order stays,
        // where the passes would change it.
        let mut owner = two_hidden();
        owner.builds = Builds::from_slice(&[Build {
            cards: 1 << card(0, 0) | 1 << card(3, 0),
            value: 5,
            owner: 1,
            multiple: false,
        }])
        .unwrap();
        let every = enumerate_worlds(&rules, &owner).unwrap();
        assert_eq!(every.len(), 5);
        let mut changed = 0;
        for seed in 0..20 {
            let mut listed = every.clone();
            Random::new(seed).shuffle(&mut listed);
            let mut passes = InPasses::new(&owner, listed.clone()).unwrap();
            let kept: Vec<World> = std::iter::from_fn(|| passes.next_world()).collect();
            assert_eq!(kept, listed);
            let mut free = InPasses::new(&two_hidden(), listed.clone()).unwrap();
            changed += (std::iter::from_fn(|| free.next_world()).collect::<Vec<_>>() != listed) as u32;
        }
        assert!(changed > 0);
    }

    #[test]
    fn combinations_come_in_itertools_order() {
        let mut got = Vec::new();
        for_combinations(&[1, 5, 9, 20], 2, |m| got.push(m));
        let pair = |a: u8, b: u8| (1u64 << a) | (1 << b);
        let want = vec![
            pair(1, 5),
            pair(1, 9),
            pair(1, 20),
            pair(5, 9),
            pair(5, 20),
            pair(9, 20),
        ];
        assert_eq!(got, want);
        let mut none = 0;
        for_combinations(&[1, 2], 3, |_| none += 1);
        assert_eq!(none, 0);
    }

    #[test]
    fn worlds_and_classes_of_two_hidden_cards() {
        let obs = two_hidden();
        let rules = Rules::classic();
        assert_eq!(count_worlds(&obs), Ok(6));
        let ws = enumerate_worlds(&rules, &obs).unwrap();
        assert_eq!(ws.len(), 6);
        assert!(ws
            .iter()
            .all(|w| w.probability == 1.0 / 6.0 && w.hands[1].count_ones() == 2));
        assert_eq!(ws[0].hands[1], (1 << card(4, 0)) | (1 << card(4, 1)));
        // The fives (clubs and diamonds) are twins: 1 class with both, 2 with one (x2), 1 with none.
        assert_eq!(count_classes(&obs, 100), Ok(4));
        assert_eq!(count_classes(&obs, 2), Ok(3));
        // Up to limit + 1 whether the 6 worlds alone tell (a class holds at most 2: above 2 x 2 for
        // a limit of 2, above 2 x 1 for 1) or the classes are listed (3: 6 is not above 2 x 3).
        assert_eq!(count_classes(&obs, 1), Ok(2));
        assert_eq!(count_classes(&obs, 3), Ok(4));
        assert_eq!(count_classes(&obs, 0), Ok(1));
        assert_eq!(count_classes(&obs, -1), Ok(1));
        let cs = world_classes(&rules, &obs).unwrap();
        let shares: Vec<f64> = cs.iter().map(|w| w.probability).collect();
        assert_eq!(shares, vec![1.0 / 6.0, 2.0 / 6.0, 2.0 / 6.0, 1.0 / 6.0]);
        let canon = Canon::of(&obs).unwrap();
        for w in &ws {
            assert!(cs.iter().any(|c| c.hands == canon.world(w, 2).hands));
        }
        let bad = Observation {
            stock_count: 5,
            ..obs
        };
        assert_eq!(
            count_worlds(&bad).unwrap_err().0,
            "4 cards are unseen, but the other hands and the stock need 7: the position's counts \
             do not add up"
        );
    }

    #[test]
    fn a_stream_deals_what_sample_world_deals_when_passes_are_too_short() {
        // 4 free cards for a hand of 3: one block a pass, so each world is a sample_world.
        let obs = Observation {
            hand_sizes: [1, 3, 0, 0],
            ..two_hidden()
        };
        let rules = Rules::classic();
        let mut passes = BalancedPasses::new(&rules, &obs);
        let (mut a, mut b) = (Random::new(5), Random::new(5));
        for pass in 1..=5 {
            let (w, p) = passes.next_world(&rules, &mut a).unwrap();
            assert_eq!((w, p), (sample_world(&rules, &obs, &mut b).unwrap(), pass));
        }
    }
}
