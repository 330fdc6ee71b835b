//! A rule set as plain data: every option of `casino_coach/engine/rules.py` (`RuleSet`, rules.md
//! §2) under the same name, string choices as enums, and the tables the engine derives from them.
//! The Python class checks the options; a `Rules` is only ever made from a checked `RuleSet`
//! (`python.rs`) or from a preset here (tests).

use super::cards::{rank, ACE, NUM_CARDS};

/// The string options of `RuleSet`: each enum's variants are its choices, in the order of
/// `rules._CHOICES`, so a choice's index there is its discriminant.
macro_rules! choice {
    ($name:ident { $($variant:ident = $text:literal),+ $(,)? }) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),+ }

        impl $name {
            pub const CHOICES: &'static [&'static str] = &[$($text),+];

            /// The choice named `text` (as `RuleSet` spells it).
            pub fn parse(text: &str) -> Option<Self> {
                $(if text == $text { return Some(Self::$variant); })+
                None
            }
        }
    };
}

choice!(DealPattern { Twos = "twos", Singly = "singly", Fours = "fours" });
choice!(Direction { Clockwise = "clockwise", Counterclockwise = "counterclockwise" });
choice!(FirstDealer { Random = "random", Seat0 = "seat0" });
choice!(FaceCards { PairOnly = "pair_only", Numeric = "numeric" });
choice!(AceValue { One = "one", OneOrFourteen = "one_or_fourteen", Hand14Table1 = "hand14_table1" });
choice!(CourtPairingCount { One = "one", All = "all", OneOrThree = "one_or_three" });
choice!(TrailRestriction { None = "none", EqualLoose = "equal_loose", AnyCapture = "any_capture" });
choice!(EqualLooseCapture { All = "all", AtLeastOne = "at_least_one" });
choice!(FalseBuild { Forbid = "forbid" });
choice!(PartnerBuildInteraction { Free = "free", RaiseOnly = "raise_only", None = "none" });
choice!(BuildForPartner { Never = "never", Announced = "announced", Provable = "provable" });
choice!(TableCardsInRaise { Never = "never", WithHandCard = "with_hand_card" });
choice!(SweepCancellation3p { None = "none", NetVsMax = "net_vs_max" });
choice!(NearTarget20 { LittleCasino = "little_casino", MostSpades = "most_spades" });
choice!(NearTargetRules { Off = "off", Dominican = "dominican", Soto = "soto" });
choice!(NearTargetMode { Freeze = "freeze", CapAt20 = "cap_at_20" });
choice!(NearTargetPrecedence { Automatic = "automatic", CountOut = "count_out" });
choice!(MajorityTie { Nobody = "nobody", Split = "split", CarryOver = "carry_over" });
choice!(EqualAtTarget { ExtraRound = "extra_round", ContinueUntilAhead = "continue_until_ahead" });
choice!(ResidueIfNoCapture { SetAside = "set_aside", Dealer = "dealer" });
choice!(CountOutItem {
    Cards = "cards",
    Spades = "spades",
    BigCasino = "big_casino",
    LittleCasino = "little_casino",
    Aces = "aces",
    Sweeps = "sweeps",
});

/// One complete rule set (`RuleSet`), with its derived tables.
#[derive(Clone, Debug, PartialEq)]
pub struct Rules {
    // 2.1 deal and turn structure
    pub partnerships: bool,
    pub deal_pattern: DealPattern,
    pub direction: Direction,
    pub announce_last_deal: bool,
    pub first_dealer: FirstDealer,
    // 2.2 card values and capturing
    pub face_cards: FaceCards,
    pub ace_value: AceValue,
    pub ace_singleton_set_in_build: bool,
    pub court_pairing_count: CourtPairingCount,
    pub trail_restriction: TrailRestriction,
    pub equal_loose_capture: EqualLooseCapture,
    pub equal_loose_build_ok: bool,
    pub build_as_card_in_sums: bool,
    // 2.3 building
    pub false_build: FalseBuild,
    pub raise_own_build: bool,
    pub partner_build_interaction: PartnerBuildInteraction,
    pub build_for_partner: BuildForPartner,
    pub table_cards_in_raise: TableCardsInRaise,
    pub table_only_builds: bool,
    pub allow_duplicate_value_builds: bool,
    pub multi_set_build_creation: bool,
    pub merge_builds: bool,
    pub owner_may_trail: bool,
    pub court_builds: bool,
    // 2.4 sweeps, residue, scoring, winning
    pub sweeps: bool,
    pub sweep_cancellation: bool,
    pub sweep_cancellation_3p: SweepCancellation3p,
    pub final_capture_can_sweep: bool,
    pub last_capture_takes_table: bool,
    pub last_capture_point: i64,
    pub residue_if_no_capture: ResidueIfNoCapture,
    pub near_target_20: NearTarget20,
    pub near_target_rules: NearTargetRules,
    pub near_target_mode: NearTargetMode,
    pub near_target_precedence: NearTargetPrecedence,
    pub majority_tie: MajorityTie,
    pub count_out: bool,
    pub equal_at_target: EqualAtTarget,
    pub count_out_order: [CountOutItem; 6],
    pub target: i64,
    pub points_cards: i64,
    pub points_spades: i64,
    pub points_big: i64,
    pub points_little: i64,
    pub points_ace: i64,
    pub points_sweep: i64,
    pub claim_during_play: bool,
    // Derived tables (`RuleSet.__post_init__`), filled by `derive`.
    pub numeric_courts: bool,
    pub max_build: u8,
    /// Value of a card in a sum or a build (0: a classic court, which only pairs).
    pub build_value: [u8; NUM_CARDS],
    /// What a card is "equal" to (courts 11..13 in every preset).
    pub pair_value: [u8; NUM_CARDS],
    /// Bit `w` set: the card captures value `w` (an ace may take 1, 14 or both).
    pub capture_masks: [u32; NUM_CARDS],
    /// A table without builds needs none of the build, Dominican or C4 rules (movegen's fast path).
    pub simple_tables: bool,
}

impl Rules {
    /// The classic preset (the dataclass defaults of `RuleSet`).
    pub fn classic() -> Rules {
        let mut r = Rules {
            partnerships: true,
            deal_pattern: DealPattern::Twos,
            direction: Direction::Clockwise,
            announce_last_deal: true,
            first_dealer: FirstDealer::Random,
            face_cards: FaceCards::PairOnly,
            ace_value: AceValue::One,
            ace_singleton_set_in_build: false,
            court_pairing_count: CourtPairingCount::One,
            trail_restriction: TrailRestriction::None,
            equal_loose_capture: EqualLooseCapture::All,
            equal_loose_build_ok: true,
            build_as_card_in_sums: false,
            false_build: FalseBuild::Forbid,
            raise_own_build: true,
            partner_build_interaction: PartnerBuildInteraction::Free,
            build_for_partner: BuildForPartner::Never,
            table_cards_in_raise: TableCardsInRaise::Never,
            table_only_builds: false,
            allow_duplicate_value_builds: true,
            multi_set_build_creation: true,
            merge_builds: false,
            owner_may_trail: false,
            court_builds: false,
            sweeps: false,
            sweep_cancellation: false,
            sweep_cancellation_3p: SweepCancellation3p::None,
            final_capture_can_sweep: true,
            last_capture_takes_table: true,
            last_capture_point: 0,
            residue_if_no_capture: ResidueIfNoCapture::SetAside,
            near_target_20: NearTarget20::LittleCasino,
            near_target_rules: NearTargetRules::Off,
            near_target_mode: NearTargetMode::Freeze,
            near_target_precedence: NearTargetPrecedence::Automatic,
            majority_tie: MajorityTie::Nobody,
            count_out: false,
            equal_at_target: EqualAtTarget::ExtraRound,
            count_out_order: [
                CountOutItem::Cards,
                CountOutItem::Spades,
                CountOutItem::BigCasino,
                CountOutItem::LittleCasino,
                CountOutItem::Aces,
                CountOutItem::Sweeps,
            ],
            target: 21,
            points_cards: 3,
            points_spades: 1,
            points_big: 2,
            points_little: 1,
            points_ace: 1,
            points_sweep: 1,
            claim_during_play: false,
            numeric_courts: false,
            max_build: 10,
            build_value: [0; NUM_CARDS],
            pair_value: [0; NUM_CARDS],
            capture_masks: [0; NUM_CARDS],
            simple_tables: true,
        };
        r.derive();
        r
    }

    /// The Royal preset (rules.md §2, column r).
    pub fn royal() -> Rules {
        let mut r = Rules::classic();
        r.face_cards = FaceCards::Numeric;
        r.ace_value = AceValue::OneOrFourteen;
        r.sweeps = true;
        r.count_out = true;
        r.derive();
        r
    }

    /// The Dominican preset (rules.md §2, column d).
    pub fn dominican() -> Rules {
        let mut r = Rules::classic();
        r.face_cards = FaceCards::Numeric;
        r.ace_value = AceValue::OneOrFourteen;
        r.direction = Direction::Counterclockwise;
        r.trail_restriction = TrailRestriction::EqualLoose;
        r.raise_own_build = false;
        r.partner_build_interaction = PartnerBuildInteraction::None;
        r.sweeps = true;
        r.sweep_cancellation = true;
        r.sweep_cancellation_3p = SweepCancellation3p::NetVsMax;
        r.near_target_rules = NearTargetRules::Dominican;
        r.count_out = true;
        r.equal_at_target = EqualAtTarget::ContinueUntilAhead;
        r.derive();
        r
    }

    /// Fill the derived tables from the options, as `RuleSet.__post_init__` does. Call it after
    /// changing any option.
    pub fn derive(&mut self) {
        let numeric = self.face_cards == FaceCards::Numeric;
        self.numeric_courts = numeric;
        self.max_build = if numeric { 14 } else { 10 };
        for c in 0..NUM_CARDS as u8 {
            let r = rank(c);
            self.build_value[c as usize] = if numeric || r < 10 { r + 1 } else { 0 };
            self.pair_value[c as usize] = r + 1;
            self.capture_masks[c as usize] = if r == ACE {
                match self.ace_value {
                    AceValue::One => 1 << 1,
                    AceValue::OneOrFourteen => (1 << 1) | (1 << 14),
                    AceValue::Hand14Table1 => 1 << 14,
                }
            } else {
                1 << (r + 1)
            };
        }
        self.simple_tables = self.trail_restriction != TrailRestriction::EqualLoose
            && !(self.build_as_card_in_sums || self.table_only_builds || self.court_builds);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_derive_their_tables() {
        let c = Rules::classic();
        assert_eq!(c.max_build, 10);
        assert_eq!(c.build_value[44], 0); // a king only pairs in classic
        assert_eq!(c.pair_value[44], 12);
        let r = Rules::royal();
        assert_eq!(r.build_value[48], 13);
        assert_eq!(r.capture_masks[0], (1 << 1) | (1 << 14));
        assert!(!Rules::dominican().simple_tables);
        assert_eq!(
            TrailRestriction::parse("equal_loose"),
            Some(TrailRestriction::EqualLoose)
        );
        assert_eq!(MajorityTie::CHOICES, &["nobody", "split", "carry_over"]);
    }
}
