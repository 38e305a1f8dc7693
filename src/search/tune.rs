//! TEMPORARY: experiment knobs read from the environment.
use std::sync::OnceLock;
pub struct Knobs {
    pub eval_empties: u32,
    pub eval_w: i32,
    pub mob_w: i32,
    pub nb_w: i32,
    pub corner_w: i32,
    pub cornermob: i32,
    pub potmob_w: i32,
    pub sort1: u32,
    pub sort2: u32,
    pub root_gap: u32,
    pub wipe: bool,
    pub iid_empties: u32,
    pub iid_gap: u32,
}
fn get(name: &str, d: i64) -> i64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}
pub fn k() -> &'static Knobs {
    static K: OnceLock<Knobs> = OnceLock::new();
    K.get_or_init(|| Knobs {
        eval_empties: get("K_EVAL_EMPTIES", 14) as u32,
        eval_w: get("K_EVAL_W", 16) as i32,
        mob_w: get("K_MOB_W", 150) as i32,
        nb_w: get("K_NB_W", 1) as i32,
        corner_w: get("K_CORNER_W", 4) as i32,
        cornermob: get("K_CORNERMOB", 1) as i32,
        potmob_w: get("K_POTMOB_W", 0) as i32,
        sort1: get("K_SORT1", 99) as u32,
        sort2: get("K_SORT2", 99) as u32,
        root_gap: get("K_ROOT_GAP", 14) as u32,
        wipe: get("K_WIPE", 1) != 0,
        iid_empties: get("K_IID_EMPTIES", 99) as u32,
        iid_gap: get("K_IID_GAP", 14) as u32,
    })
}
