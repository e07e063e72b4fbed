//! [`GpuColouring::read_colours`]: a step's colours, solve order, colour ranges and joint
//! order read back, for tests and tools (the GPU world reads the packed colours with its
//! state instead).

use std::ops::Range;

use super::{COUNTERS, GpuColouring, RANGE_BYTES};
use crate::dynamics::COLOURS;
use crate::error::Error;
use crate::gpu::plumbing::read_back;

/// What [`GpuColouring::read_colours`] reads back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuColours {
    /// Per constraint (the contacts, then the joints), its colour: below
    /// [`COLOURS`](crate::dynamics::COLOURS), or [`OVERFLOW`](crate::dynamics::OVERFLOW),
    /// or [`LEFT_OUT`](crate::dynamics::LEFT_OUT); or 254 for a constraint the finishers
    /// left undecided, which happens only where llvmpipe cut their loops short (a body in
    /// some 270 new constraints or more: docs/reliability.md), and which is in no colour
    /// and not in `order`.
    pub colours: Vec<u8>,
    /// The constraint indices by colour, ascending within a colour, the overflow's last
    /// (the constraints left out are in none): the order the solver visits them in.
    pub order: Vec<u32>,
    /// Per colour (the overflow's last): its contacts' range in `order` and its joints'
    /// in `joint_order` (an empty range starts where the colour's would).
    pub ranges: [[Range<usize>; 2]; COLOURS + 1],
    /// The coloured joints' slots by colour, ascending within a colour, the overflow's
    /// last: the order the solver visits them in.
    pub joint_order: Vec<u32>,
    /// Which of the keep and the fresh finishers ran: the last round left constraints
    /// undecided, or there were no rounds.
    pub finished_serially: [bool; 2],
}

impl GpuColouring {
    /// The colours, the solve order and the colour ranges of the last
    /// [`GpuColouring::colour`], read back (16 bytes a constraint, and 400).
    pub fn read_colours(&mut self) -> Result<GpuColours, Error> {
        let count = self.count as u64;
        let joints = (self.count - self.shape[0]) as u64;
        let order_at = 16 + 8 * count;
        let ranges_at = order_at + 4 * count;
        let joints_at = ranges_at + RANGE_BYTES;
        let bytes = joints_at + 4 * joints;
        self.readback.reserve(&self.device, bytes, u64::MAX);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("wgpu-sat colouring readback"),
            });
        let to = &self.readback.buffer;
        encoder.copy_buffer_to_buffer(&self.work.buffer, 0, to, 0, 16);
        if count > 0 {
            encoder.copy_buffer_to_buffer(&self.items[0].buffer, 0, to, 16, 8 * count);
            encoder.copy_buffer_to_buffer(&self.order.buffer, 0, to, order_at, 4 * count);
            encoder.copy_buffer_to_buffer(&self.ranges, 0, to, ranges_at, RANGE_BYTES);
        }
        if joints > 0 {
            let from = &self.joint_order.buffer;
            encoder.copy_buffer_to_buffer(from, 0, to, joints_at, 4 * joints);
        }
        self.queue.submit([encoder.finish()]);
        let mut read = GpuColours {
            colours: Vec::with_capacity(self.count),
            order: Vec::with_capacity(self.count),
            ranges: std::array::from_fn(|_| [0..0, 0..0]),
            joint_order: Vec::new(),
            finished_serially: [false; 2],
        };
        let (rounds, count) = (self.rounds, self.count);
        read_back(&self.device, to, bytes, |data| {
            let words: &[u32] = bytemuck::cast_slice(data);
            // A finisher runs when the last round left work: its counter is that round.
            read.finished_serially = [0, 1].map(|k| count > 0 && words[k] == rounds[k]);
            let (items, rest) = words[COUNTERS..].split_at(2 * count);
            let (order, rest) = rest.split_at(count);
            read.colours
                .extend(items.chunks_exact(2).map(|item| item[0] as u8));
            // The constraints left out sort last, after the undecided ones, and neither is
            // in a colour.
            let solved = (read.colours.iter())
                .filter(|&&c| usize::from(c) <= COLOURS)
                .count();
            read.order.extend_from_slice(&order[..solved]);
            if count == 0 {
                return;
            }
            let (ranges, joint_order) = rest.split_at(4 * (COLOURS + 1));
            for (range, r) in read.ranges.iter_mut().zip(ranges.chunks_exact(4)) {
                let [first, contacts, joint, joints] = [0, 1, 2, 3].map(|k| r[k] as usize);
                *range = [first..first + contacts, joint..joint + joints];
            }
            let coloured = read.ranges[COLOURS][1].end;
            read.joint_order.extend_from_slice(&joint_order[..coloured]);
        })?;
        Ok(read)
    }
}
