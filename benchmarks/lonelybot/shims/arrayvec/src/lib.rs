#![no_std]
//! A stand-in for arrayvec's ArrayVec (the parts lonelybot uses).
use core::mem::MaybeUninit;
use core::ops::{Deref, DerefMut};

pub struct ArrayVec<T, const N: usize> { data: [MaybeUninit<T>; N], len: usize }

impl<T, const N: usize> ArrayVec<T, N> {
    pub const fn new() -> Self { Self { data: unsafe { MaybeUninit::uninit().assume_init() }, len: 0 } }
    pub const fn len(&self) -> usize { self.len }
    pub const fn is_empty(&self) -> bool { self.len == 0 }
    pub const fn is_full(&self) -> bool { self.len == N }
    pub const fn capacity(&self) -> usize { N }
    pub fn push(&mut self, v: T) {
        assert!(self.len < N, "ArrayVec full");
        self.data[self.len] = MaybeUninit::new(v);
        self.len += 1;
    }
    pub fn try_push(&mut self, v: T) -> Result<(), T> { if self.len < N { self.push(v); Ok(()) } else { Err(v) } }
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 { return None; }
        self.len -= 1;
        Some(unsafe { self.data[self.len].assume_init_read() })
    }
    pub fn insert(&mut self, idx: usize, v: T) {
        assert!(idx <= self.len && self.len < N);
        unsafe {
            let p = self.data.as_mut_ptr().add(idx);
            core::ptr::copy(p, p.add(1), self.len - idx);
            p.write(MaybeUninit::new(v));
        }
        self.len += 1;
    }
    pub fn remove(&mut self, idx: usize) -> T {
        assert!(idx < self.len);
        unsafe {
            let p = self.data.as_mut_ptr().add(idx);
            let v = (*p).assume_init_read();
            core::ptr::copy(p.add(1), p, self.len - idx - 1);
            self.len -= 1;
            v
        }
    }
    pub fn pop_at(&mut self, idx: usize) -> Option<T> { if idx < self.len { Some(self.remove(idx)) } else { None } }
    pub fn truncate(&mut self, n: usize) { while self.len > n { self.pop(); } }
    pub fn clear(&mut self) { self.truncate(0); }
    pub fn as_slice(&self) -> &[T] { unsafe { core::slice::from_raw_parts(self.data.as_ptr() as *const T, self.len) } }
    pub fn as_mut_slice(&mut self) -> &mut [T] { unsafe { core::slice::from_raw_parts_mut(self.data.as_mut_ptr() as *mut T, self.len) } }
}
impl<T, const N: usize> Drop for ArrayVec<T, N> { fn drop(&mut self) { self.clear(); } }
impl<T, const N: usize> Default for ArrayVec<T, N> { fn default() -> Self { Self::new() } }
impl<T, const N: usize> Deref for ArrayVec<T, N> { type Target = [T]; fn deref(&self) -> &[T] { self.as_slice() } }
impl<T, const N: usize> DerefMut for ArrayVec<T, N> { fn deref_mut(&mut self) -> &mut [T] { self.as_mut_slice() } }
impl<T: Clone, const N: usize> Clone for ArrayVec<T, N> {
    fn clone(&self) -> Self { let mut v = Self::new(); for x in self.iter() { v.push(x.clone()); } v }
}
impl<T: core::fmt::Debug, const N: usize> core::fmt::Debug for ArrayVec<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result { self.as_slice().fmt(f) }
}
impl<T: PartialEq, const N: usize> PartialEq for ArrayVec<T, N> { fn eq(&self, o: &Self) -> bool { self.as_slice() == o.as_slice() } }
impl<T: Eq, const N: usize> Eq for ArrayVec<T, N> {}
impl<T, const N: usize> From<[T; N]> for ArrayVec<T, N> {
    fn from(a: [T; N]) -> Self { let mut v = Self::new(); for x in a { v.push(x); } v }
}
impl<T, const N: usize> FromIterator<T> for ArrayVec<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self { let mut v = Self::new(); for x in it { v.push(x); } v }
}
impl<T, const N: usize> Extend<T> for ArrayVec<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, it: I) { for x in it { self.push(x); } }
}
impl<'a, T, const N: usize> IntoIterator for &'a ArrayVec<T, N> {
    type Item = &'a T; type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter { self.as_slice().iter() }
}
impl<'a, T, const N: usize> IntoIterator for &'a mut ArrayVec<T, N> {
    type Item = &'a mut T; type IntoIter = core::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter { self.as_mut_slice().iter_mut() }
}
pub struct IntoIter<T, const N: usize> { v: ArrayVec<T, N>, i: usize }
impl<T, const N: usize> Iterator for IntoIter<T, N> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        if self.i >= self.v.len { return None; }
        let x = unsafe { self.v.data[self.i].assume_init_read() };
        self.i += 1;
        Some(x)
    }
}
impl<T, const N: usize> Drop for IntoIter<T, N> {
    fn drop(&mut self) { while self.next().is_some() {} self.v.len = 0; }
}
impl<T, const N: usize> IntoIterator for ArrayVec<T, N> {
    type Item = T; type IntoIter = IntoIter<T, N>;
    fn into_iter(self) -> IntoIter<T, N> { IntoIter { v: self, i: 0 } }
}
