//! The geometry of the 1-D convolutions over channel-major `[channels, time]` tensors: what the
//! GPU layers (`nn::conv`), the CPU fallback of the Piper voice and the `reference` oracle share.

/// Shape and attributes of a `Conv1d` (stride 1, symmetric zero padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conv1dShape {
    pub c_in: usize,
    pub c_out: usize,
    pub kernel: usize,
    pub dilation: usize,
    pub padding: usize,
    pub groups: usize,
}

impl Conv1dShape {
    /// A dense "same" convolution (odd kernel, dilation 1).
    pub fn same(c_in: usize, c_out: usize, kernel: usize) -> Self {
        Conv1dShape { c_in, c_out, kernel, dilation: 1, padding: (kernel - 1) / 2, groups: 1 }
    }

    pub fn t_out(&self, t_in: usize) -> usize {
        (t_in + 2 * self.padding).saturating_sub(self.dilation * (self.kernel - 1))
    }

    /// Elements of the weight, `[c_out, c_in / groups, kernel]`.
    pub fn weight_len(&self) -> usize {
        self.c_out * (self.c_in / self.groups) * self.kernel
    }
}

/// Shape and attributes of a `ConvTranspose1d` (groups 1, dilation 1, no output padding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvTranspose1dShape {
    pub c_in: usize,
    pub c_out: usize,
    pub kernel: usize,
    pub stride: usize,
    pub padding: usize,
}

impl ConvTranspose1dShape {
    pub fn t_out(&self, t_in: usize) -> usize {
        ((t_in.max(1) - 1) * self.stride + self.kernel).saturating_sub(2 * self.padding)
    }
}
