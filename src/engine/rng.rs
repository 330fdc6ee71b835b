//! CPython's `random.Random`, draw for draw: the Mersenne Twister (MT19937) seeded as CPython seeds
//! it from an int, and the methods the worlds use (`getrandbits`, `random`, `_randbelow`,
//! `shuffle`, `sample`), each the same arithmetic as Python 3.11's `_randommodule.c` and `random.py`.
//! A generator seeded here with the seed of a Python one gives the same numbers in the same order,
//! so the native worlds are the reference's worlds (`casino_coach/search/worlds.py`), and a
//! generator's state crosses between the two (`getstate` / `from_state`, CPython's layout).

const N: usize = 624;
const M: usize = 397;
const MATRIX_A: u32 = 0x9908_b0df;
const UPPER_MASK: u32 = 0x8000_0000;
const LOWER_MASK: u32 = 0x7fff_ffff;

/// `init_genrand(s)`: the state every seeding starts from, with `s` = 19650218 (`init_by_array`'s).
const fn init_genrand(s: u32) -> [u32; N] {
    let mut mt = [0; N];
    mt[0] = s;
    let mut i = 1;
    while i < N {
        let prev = mt[i - 1];
        mt[i] = 1_812_433_253u32
            .wrapping_mul(prev ^ (prev >> 30))
            .wrapping_add(i as u32);
        i += 1;
    }
    mt
}

/// The state `init_by_array` starts from whatever the seed: worked out once, at compile time (a
/// chain of 623 multiplies, a quarter of seeding a generator, and the search seeds one a decision).
const GENRAND_19650218: [u32; N] = init_genrand(19_650_218);

/// CPython's `random.Random` (the Mersenne Twister of `_random.Random`, and `random.py`'s methods).
///
/// Besides the state (`mt`), the generator keeps its next 624 outputs tempered (`out`, worked out
/// whenever `mt` changes, a whole block at a time): a shuffle of the worlds asks for a word per card,
/// and tempering each word as it was asked for, with a test for the end of the block, was most of
/// the cost of a word. A new generator's block is all used (`index` is N: the first word twists),
/// so seeding leaves `out` as it is; two generators are equal when their states are.
#[derive(Clone, Debug)]
pub struct Random {
    mt: [u32; N],
    index: usize,
    out: [u32; N],
}

impl PartialEq for Random {
    fn eq(&self, other: &Random) -> bool {
        self.mt == other.mt && self.index == other.index
    }
}

impl Eq for Random {}

/// MT19937's tempering of one word of the state.
#[inline(always)]
fn temper(mut y: u32) -> u32 {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c_5680;
    y ^= (y << 15) & 0xefc6_0000;
    y ^ (y >> 18)
}

/// One step of the twist: the new word at `kk` from the words at `kk`, `kk + 1` and `kk + M` (mod N).
#[inline(always)]
fn twisted(at: u32, next: u32, far: u32) -> u32 {
    let y = (at & UPPER_MASK) | (next & LOWER_MASK);
    far ^ (y >> 1) ^ ((y & 1).wrapping_neg() & MATRIX_A)
}

impl Random {
    /// `random.Random(seed)` for a non-negative int seed given as its 32-bit words, least significant
    /// first (CPython's `random_seed`: `init_by_array` of those words; the seed 0 is one word 0).
    pub fn from_words(words: &[u32]) -> Random {
        let mut key: Vec<u32> = words.to_vec();
        while key.len() > 1 && key[key.len() - 1] == 0 {
            key.pop();
        }
        if key.is_empty() {
            key.push(0);
        }
        let mut r = Random {
            mt: [0; N],
            index: N,
            out: [0; N],
        };
        r.init_by_array(&key);
        r
    }

    /// `random.Random(seed)` for a seed that fits 64 bits.
    pub fn new(seed: u64) -> Random {
        Random::from_words(&[seed as u32, (seed >> 32) as u32])
    }

    fn init_by_array(&mut self, key: &[u32]) {
        self.mt = GENRAND_19650218;
        self.index = N;
        let mt = &mut self.mt;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
    }

    /// CPython's `getstate()[1]`: the 624 words and the position, as 625 ints.
    pub fn state(&self) -> Vec<u32> {
        let mut out = self.mt.to_vec();
        out.push(self.index as u32);
        out
    }

    /// The generator of a `state()` (CPython's `setstate`); `None` for one CPython would refuse.
    pub fn from_state(state: &[u32]) -> Option<Random> {
        if state.len() != N + 1 || state[N] as usize > N {
            return None;
        }
        let mut mt = [0; N];
        mt.copy_from_slice(&state[..N]);
        let mut r = Random {
            mt,
            index: state[N] as usize,
            out: [0; N],
        };
        r.temper_all();
        Some(r)
    }

    /// `out` from `mt`.
    fn temper_all(&mut self) {
        for (o, &y) in self.out.iter_mut().zip(&self.mt) {
            *o = temper(y);
        }
    }

    /// The next block of the state (MT19937's twist, each word as `genrand_uint32` makes it), and
    /// its outputs tempered.
    #[cold]
    fn twist(&mut self) {
        let mt = &mut self.mt;
        // Each word reads the next one and the one M further before they are twisted themselves
        // (the first N - M), or after (the rest, and the last, which reads the first).
        for kk in 0..N - M {
            mt[kk] = twisted(mt[kk], mt[kk + 1], mt[kk + M]);
        }
        for kk in N - M..N - 1 {
            mt[kk] = twisted(mt[kk], mt[kk + 1], mt[kk + M - N]);
        }
        mt[N - 1] = twisted(mt[N - 1], mt[0], mt[M - 1]);
        self.temper_all();
    }

    /// `genrand_uint32`: the next 32 random bits.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.twist();
            self.index = 0;
        }
        let y = self.out[self.index];
        self.index += 1;
        y
    }

    /// `getrandbits(k)` as its 32-bit words, least significant first: a word per 32 bits, the last
    /// one cut to the bits left (CPython's `_random_Random_getrandbits_impl`).
    pub fn getrandbits_words(&mut self, k: u32) -> Vec<u32> {
        if k == 0 {
            return Vec::new();
        }
        if k <= 32 {
            return vec![self.next_u32() >> (32 - k)];
        }
        let mut left = k;
        let mut out = Vec::with_capacity(((k - 1) / 32 + 1) as usize);
        while left > 0 {
            let mut r = self.next_u32();
            if left < 32 {
                r >>= 32 - left;
            }
            out.push(r);
            left = left.saturating_sub(32);
        }
        out
    }

    /// `getrandbits(k)` for `k <= 64`: `getrandbits_words` put together, without a list (every
    /// shuffle and draw of the worlds asks for one per card: a list each was most of their time).
    pub fn getrandbits(&mut self, k: u32) -> u64 {
        assert!(k <= 64, "getrandbits({k}) does not fit 64 bits");
        match k {
            0 => 0,
            1..=32 => (self.next_u32() >> (32 - k)) as u64,
            _ => {
                let low = self.next_u32() as u64;
                low | ((self.next_u32() >> (64 - k)) as u64) << 32
            }
        }
    }

    /// `random()`: a float in [0, 1) of 53 random bits.
    pub fn random(&mut self) -> f64 {
        let a = self.next_u32() >> 5;
        let b = self.next_u32() >> 6;
        (a as f64 * 67_108_864.0 + b as f64) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `_randbelow(n)` (`_randbelow_with_getrandbits`): an int in [0, n) by rejection of
    /// `n.bit_length()` random bits. `n` must be positive (CPython's loops forever on 0).
    pub fn randbelow(&mut self, n: u64) -> u64 {
        assert!(n > 0, "randbelow(0)");
        let k = 64 - n.leading_zeros();
        let mut r = self.getrandbits(k);
        while r >= n {
            r = self.getrandbits(k);
        }
        r
    }

    /// `shuffle(items)` in place (also `cards.shuffle`, which is CPython's written out).
    ///
    /// Each place `i`, last first, takes `_randbelow(i + 1)`: words cut to the bits of `i + 1` until
    /// one is at most `i`. Here each word is one turn of the loop, and a word too large swaps the
    /// place with itself and stays at it: whether a word is taken is a coin toss (a quarter of them
    /// are not, on average), which a branch mispredicted again and again.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        let len = items.len();
        if len > u32::MAX as usize {
            for i in (1..len).rev() {
                let j = self.randbelow(i as u64 + 1) as usize;
                items.swap(i, j);
            }
            return;
        }
        let mut i = len.saturating_sub(1);
        while i > 0 {
            // getrandbits(k) with k the bit length of i + 1, as `randbelow` asks for it
            let j = (self.next_u32() >> (i as u32 + 1).leading_zeros()) as usize;
            let taken = j <= i;
            items.swap(i, if taken { j } else { i });
            i -= taken as usize;
        }
    }

    /// `sample(population, k)`: `k` distinct items in the order drawn. Python 3.11 keeps a pool of
    /// the items when the population is small next to the set of picks it would need (`setsize`),
    /// else a set of the positions picked, drawing again on a repeat; both are mirrored here.
    /// `None` when `k` is more than the population (CPython's ValueError).
    pub fn sample<T: Copy>(&mut self, population: &[T], k: usize) -> Option<Vec<T>> {
        let n = population.len();
        if k > n {
            return None;
        }
        let mut setsize = 21usize;
        if k > 5 {
            let exp = ((k * 3) as f64).ln() / 4f64.ln();
            setsize += 4usize.pow(exp.ceil() as u32);
        }
        let mut result = Vec::with_capacity(k);
        if n <= setsize {
            let mut pool = population.to_vec();
            for i in 0..k {
                let j = self.randbelow((n - i) as u64) as usize;
                result.push(pool[j]);
                pool[j] = pool[n - i - 1];
            }
        } else {
            let mut selected = std::collections::HashSet::with_capacity(k);
            for _ in 0..k {
                let mut j = self.randbelow(n as u64) as usize;
                while selected.contains(&j) {
                    j = self.randbelow(n as u64) as usize;
                }
                selected.insert(j);
                result.push(population[j]);
            }
        }
        Some(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Known outputs of CPython 3.11's random.Random.

    #[test]
    fn random_floats_are_cpythons() {
        // random.Random(0).random(), random.Random(42).random()
        assert_eq!(Random::new(0).random(), 0.8444218515250481);
        assert_eq!(Random::new(42).random(), 0.6394267984578837);
    }

    #[test]
    fn getrandbits_is_cpythons() {
        let mut r = Random::new(12345);
        let got: Vec<u64> = (0..5).map(|_| r.getrandbits(32)).collect();
        assert_eq!(got, KNOWN_12345_BITS32);
        let mut r = Random::new(0xDEAD_BEEF_CAFE_F00D);
        assert_eq!(r.getrandbits(64), KNOWN_BIG_SEED_BITS64);
        assert_eq!(r.getrandbits(7), KNOWN_BIG_SEED_BITS7);
        let mut r = Random::new(1);
        assert_eq!(
            r.getrandbits_words(100),
            KNOWN_1_BITS100.to_vec(),
            "getrandbits(100) of Random(1)"
        );
    }

    #[test]
    fn getrandbits_puts_the_words_together() {
        for k in 0..=64 {
            let (mut a, mut b) = (Random::new(k as u64), Random::new(k as u64));
            for _ in 0..3 {
                let words = b.getrandbits_words(k);
                let want = words
                    .iter()
                    .enumerate()
                    .fold(0u64, |acc, (i, &w)| acc | (w as u64) << (32 * i));
                assert_eq!(a.getrandbits(k), want, "getrandbits({k})");
            }
            assert_eq!(a, b);
        }
    }

    #[test]
    fn shuffle_and_sample_are_cpythons() {
        let mut r = Random::new(7);
        let mut v: Vec<u32> = (0..10).collect();
        r.shuffle(&mut v);
        assert_eq!(v, KNOWN_7_SHUFFLE10);
        let mut r = Random::new(7);
        let pop: Vec<u32> = (0..40).collect();
        assert_eq!(r.sample(&pop, 3).unwrap(), KNOWN_7_SAMPLE_40_3); // the set branch (n > 21)
        assert_eq!(r.sample(&pop, 8).unwrap(), KNOWN_7_SAMPLE_40_8_AFTER); // the pool branch
        assert!(r.sample(&pop, 41).is_none());
    }

    #[test]
    fn a_state_round_trips() {
        let mut r = Random::new(99);
        r.getrandbits(5);
        let s = r.state();
        assert_eq!(s.len(), 625);
        assert_eq!(Random::from_state(&s), Some(r));
        assert_eq!(Random::new(0), Random::from_words(&[0, 0, 0]));
    }

    /// `genrand_uint32` as CPython writes it: twisting a word at a time, tempering as it goes.
    struct Plain {
        mt: [u32; N],
        index: usize,
    }

    impl Plain {
        fn next_u32(&mut self) -> u32 {
            if self.index >= N {
                let mt = &mut self.mt;
                let mag = |y: u32| if y & 1 == 0 { 0 } else { MATRIX_A };
                for kk in 0..N - M {
                    let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
                    mt[kk] = mt[kk + M] ^ (y >> 1) ^ mag(y);
                }
                for kk in N - M..N - 1 {
                    let y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
                    mt[kk] = mt[kk + M - N] ^ (y >> 1) ^ mag(y);
                }
                let y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
                mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ mag(y);
                self.index = 0;
            }
            let mut y = self.mt[self.index];
            self.index += 1;
            y ^= y >> 11;
            y ^= (y << 7) & 0x9d2c_5680;
            y ^= (y << 15) & 0xefc6_0000;
            y ^= y >> 18;
            y
        }
    }

    #[test]
    fn the_tempered_block_is_the_word_by_word_generator() {
        for seed in [0u64, 1, 7, 0xDEAD_BEEF] {
            let mut r = Random::new(seed);
            for skip in [0usize, 1, 623, 624, 625] {
                let mut state = r.state();
                let mut plain = Plain {
                    mt: state[..N].try_into().unwrap(),
                    index: state.pop().unwrap() as usize,
                };
                for _ in 0..3 * N + skip {
                    assert_eq!(r.next_u32(), plain.next_u32());
                }
                assert_eq!(r.state()[..N], plain.mt[..]);
                assert_eq!(Random::from_state(&r.state()), Some(r.clone()));
            }
        }
    }

    #[test]
    fn a_shuffle_takes_randbelow_for_each_place() {
        for seed in 0..200u64 {
            for len in [0usize, 1, 2, 3, 5, 17, 40, 52, 700] {
                let (mut a, mut b) = (Random::new(seed), Random::new(seed));
                let mut got: Vec<usize> = (0..len).collect();
                a.shuffle(&mut got);
                let mut want: Vec<usize> = (0..len).collect();
                for i in (1..len).rev() {
                    let j = b.randbelow(i as u64 + 1) as usize;
                    want.swap(i, j);
                }
                assert_eq!(got, want, "seed {seed}, {len} items");
                assert_eq!(a, b);
            }
        }
    }

    const KNOWN_12345_BITS32: [u64; 5] = [1789368711, 3146859322, 43676229, 3522623596, 3544234957];
    const KNOWN_BIG_SEED_BITS64: u64 = 12737971644689237860;
    const KNOWN_BIG_SEED_BITS7: u64 = 106;
    const KNOWN_1_BITS100: [u32; 4] = [577090037, 2444712010, 3639700191, 12];
    const KNOWN_7_SHUFFLE10: [u32; 10] = [8, 3, 1, 4, 7, 0, 9, 6, 2, 5];
    const KNOWN_7_SAMPLE_40_3: [u32; 3] = [20, 9, 25];
    const KNOWN_7_SAMPLE_40_8_AFTER: [u32; 8] = [3, 4, 34, 6, 23, 39, 32, 13];
}
