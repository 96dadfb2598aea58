//! Connections and the clients that hold them. A connection is made once,
//! to the endpoint its client's node picked, and stays pinned to that Pod
//! (conntrack keeps TCP flows: kubernetes#101607) until one side closes it.
//!
//! Invariant: a connection id is reused only once nothing refers to it: a
//! connection in a client's pool is freed when the client takes it out,
//! any other when it closes. A pool may hold connections the server has
//! closed; the client learns of the close when it next looks (so a request
//! sent in the very millisecond of the close races it).

use crate::engine::SimTime;

/// What a connection is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnState {
    /// Open, waiting in its client's pool.
    Idle,
    /// Carrying this request.
    Busy(u32),
    /// Closed at `at`: by the process dying (`reset`) or by a graceful close.
    Closed { at: SimTime, reset: bool },
}

/// One TCP connection from a client to a Pod.
#[derive(Clone, Copy, Debug)]
pub struct Conn {
    pub client: u32,
    pub replica: u32,
    pub state: ConnState,
    /// Bumped when an idle connection is taken, so its idle timer goes stale.
    pub generation: u32,
    /// Its position in its replica's list of open connections.
    pub slot: u32,
    /// It sits in its client's pool.
    pub pooled: bool,
    /// When it last went back to its client's pool (its idle timeout runs from here).
    pub idle_since: SimTime,
}

/// A load generator on a node.
#[derive(Clone, Debug, Default)]
pub struct Client {
    pub node: u32,
    /// Idle kept-alive connections, most recently used last (Go reuses it first).
    pub pool: Vec<u32>,
}

/// Every connection of a run, with the free ids to reuse.
#[derive(Clone, Debug, Default)]
pub struct Conns {
    all: Vec<Conn>,
    free: Vec<u32>,
}

impl Conns {
    pub fn clear(&mut self) {
        self.all.clear();
        self.free.clear();
    }

    /// A new open connection, busy with nothing yet; `open` is the
    /// replica's list of open connections, which it joins.
    pub fn open(&mut self, client: u32, replica: u32, open: &mut Vec<u32>) -> u32 {
        let conn = Conn {
            client,
            replica,
            state: ConnState::Idle,
            generation: 0,
            slot: open.len() as u32,
            pooled: false,
            idle_since: SimTime::ZERO,
        };
        let id = match self.free.pop() {
            Some(id) => {
                let generation = self.all[id as usize].generation.wrapping_add(1);
                self.all[id as usize] = Conn { generation, ..conn };
                id
            }
            None => {
                self.all.push(conn);
                (self.all.len() - 1) as u32
            }
        };
        open.push(id);
        id
    }

    pub fn get(&self, id: u32) -> &Conn {
        &self.all[id as usize]
    }

    pub fn get_mut(&mut self, id: u32) -> &mut Conn {
        &mut self.all[id as usize]
    }

    /// Closes `id` at `now`, taking it off its replica's `open` list; it is
    /// freed unless its client's pool still holds it.
    pub fn close(&mut self, id: u32, now: SimTime, reset: bool, open: &mut Vec<u32>) {
        let slot = self.all[id as usize].slot as usize;
        open.swap_remove(slot);
        if let Some(&moved) = open.get(slot) {
            self.all[moved as usize].slot = slot as u32;
        }
        let conn = &mut self.all[id as usize];
        conn.state = ConnState::Closed { at: now, reset };
        if !conn.pooled {
            self.free.push(id);
        }
    }

    /// `id` left its client's pool: free it if it is closed.
    pub fn unpool(&mut self, id: u32) {
        let conn = &mut self.all[id as usize];
        conn.pooled = false;
        if matches!(conn.state, ConnState::Closed { .. }) {
            self.free.push(id);
        }
    }

    /// Open idle connections in `pool`.
    pub fn idle_in(&self, pool: &[u32]) -> usize {
        pool.iter()
            .filter(|&&c| self.all[c as usize].state == ConnState::Idle)
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closing_keeps_the_open_list_and_slots_in_step() {
        let mut conns = Conns::default();
        let mut open = Vec::new();
        let a = conns.open(0, 0, &mut open);
        let b = conns.open(0, 0, &mut open);
        let c = conns.open(0, 0, &mut open);
        conns.close(a, SimTime(5), false, &mut open);
        assert_eq!(open, [c, b]);
        assert_eq!((conns.get(c).slot, conns.get(b).slot), (0, 1));
        // The freed id is reused, with a new generation.
        let d = conns.open(0, 0, &mut open);
        assert_eq!((d, conns.get(d).generation), (a, 1));
    }

    #[test]
    fn a_pooled_connection_is_freed_only_when_it_leaves_the_pool() {
        let mut conns = Conns::default();
        let mut open = Vec::new();
        let a = conns.open(0, 0, &mut open);
        conns.get_mut(a).pooled = true;
        conns.close(a, SimTime(5), true, &mut open);
        let b = conns.open(0, 0, &mut open);
        assert_ne!(a, b);
        conns.unpool(a);
        conns.close(b, SimTime(6), false, &mut open);
        assert_eq!(conns.open(0, 0, &mut open), b);
        assert_eq!(conns.open(0, 0, &mut open), a);
    }
}
