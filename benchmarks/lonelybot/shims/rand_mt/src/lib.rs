#![no_std]
//! MT19937 (32-bit), the parts lonelybot's Solvitaire shuffle uses.
pub struct Mt { mt: [u32; 624], i: usize }
impl Mt {
    pub fn new(seed: u32) -> Self {
        let mut mt = [0u32; 624];
        mt[0] = seed;
        for i in 1..624 { mt[i] = 1812433253u32.wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30)).wrapping_add(i as u32); }
        Self { mt, i: 624 }
    }
    pub fn next_u32(&mut self) -> u32 {
        if self.i >= 624 {
            for k in 0..624 {
                let y = (self.mt[k] & 0x8000_0000) | (self.mt[(k + 1) % 624] & 0x7fff_ffff);
                let mut v = self.mt[(k + 397) % 624] ^ (y >> 1);
                if y & 1 != 0 { v ^= 0x9908_b0df; }
                self.mt[k] = v;
            }
            self.i = 0;
        }
        let mut y = self.mt[self.i];
        self.i += 1;
        y ^= y >> 11; y ^= (y << 7) & 0x9d2c_5680; y ^= (y << 15) & 0xefc6_0000; y ^= y >> 18;
        y
    }
}
impl rand::Rng for Mt {
    fn next_u64(&mut self) -> u64 { (u64::from(self.next_u32()) << 32) | u64::from(self.next_u32()) }
    fn next_u32(&mut self) -> u32 { Mt::next_u32(self) }
}
