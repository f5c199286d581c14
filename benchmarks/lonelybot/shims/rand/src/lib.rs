#![no_std]
//! A stand-in for the parts of `rand` 0.10 that lonelybot uses (no registry access here).
pub trait Rng {
    fn next_u64(&mut self) -> u64;
    fn next_u32(&mut self) -> u32 { (self.next_u64() >> 32) as u32 }
    fn random_range<T: RangeInt>(&mut self, r: core::ops::Range<T>) -> T {
        let (a, b) = (r.start.to_u64(), r.end.to_u64());
        T::from_u64(a + self.next_u64() % (b - a))
    }
    fn random_bool(&mut self, p: f64) -> bool { ((self.next_u64() >> 11) as f64) / ((1u64 << 53) as f64) < p }
    fn random<T: FromRng>(&mut self) -> T where Self: Sized { T::from_rng(self) }
}
pub trait RangeInt: Copy { fn to_u64(self) -> u64; fn from_u64(v: u64) -> Self; }
impl RangeInt for u8 { fn to_u64(self) -> u64 { u64::from(self) } fn from_u64(v: u64) -> Self { v as u8 } }
impl RangeInt for u32 { fn to_u64(self) -> u64 { u64::from(self) } fn from_u64(v: u64) -> Self { v as u32 } }
impl RangeInt for usize { fn to_u64(self) -> u64 { self as u64 } fn from_u64(v: u64) -> Self { v as usize } }
pub use self::Rng as RngCore;
pub trait FromRng { fn from_rng<R: Rng>(r: &mut R) -> Self; }
impl FromRng for u64 { fn from_rng<R: Rng>(r: &mut R) -> Self { r.next_u64() } }
impl FromRng for u128 { fn from_rng<R: Rng>(r: &mut R) -> Self { (u128::from(r.next_u64()) << 64) | u128::from(r.next_u64()) } }
pub trait SeedableRng: Sized { fn seed_from_u64(s: u64) -> Self; }
pub mod rngs {
    /// xoshiro256++, seeded by splitmix64 (as rand's SmallRng on 64-bit targets)
    #[derive(Clone, Debug)]
    pub struct SmallRng { s: [u64; 4] }
    impl super::SeedableRng for SmallRng {
        fn seed_from_u64(mut x: u64) -> Self {
            let mut s = [0u64; 4];
            for v in &mut s {
                x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                *v = z ^ (z >> 31);
            }
            Self { s }
        }
    }
    impl super::Rng for SmallRng {
        fn next_u64(&mut self) -> u64 {
            let s = &mut self.s;
            let r = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
            let t = s[1] << 17;
            s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t; s[3] = s[3].rotate_left(45);
            r
        }
    }
}
pub mod seq {
    pub trait SliceRandom {
        type Item;
        fn shuffle<R: super::Rng + ?Sized>(&mut self, rng: &mut R);
        fn choose<R: super::Rng + ?Sized>(&self, rng: &mut R) -> Option<&Self::Item>;
    }
    impl<T> SliceRandom for [T] {
        type Item = T;
        fn shuffle<R: super::Rng + ?Sized>(&mut self, rng: &mut R) {
            for i in (1..self.len()).rev() {
                let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                self.swap(i, j);
            }
        }
        fn choose<R: super::Rng + ?Sized>(&self, rng: &mut R) -> Option<&T> {
            if self.is_empty() { None } else { Some(&self[(rng.next_u64() % self.len() as u64) as usize]) }
        }
    }
}
pub mod prelude {
    pub use super::rngs::SmallRng;
    pub use super::seq::SliceRandom;
    pub use super::{Rng, RngCore, SeedableRng};
}
