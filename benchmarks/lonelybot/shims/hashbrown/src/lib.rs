pub use std::collections::{HashMap, HashSet};
