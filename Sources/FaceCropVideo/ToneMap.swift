extension VideoProbe {
    /// ffmpeg filters taking an HDR video's frames to SDR (none for SDR):
    /// PQ or HLG to linear light at 100 nits nominal peak, the Mobius curve
    /// (linear up to 0.3 of the peak, then rolled off) without
    /// desaturation, then BT.709 primaries, transfer and matrix (limited
    /// range). The frame reader's and `facecrop pick`'s frames alike.
    package var toneMap: [String] {
        guard isHDR else { return [] }
        return [
            "zscale=tin=\(transfer):t=linear:npl=100:pin=bt2020:min=bt2020nc",
            "format=gbrpf32le", "zscale=p=bt709", "tonemap=tonemap=mobius:desat=0",
            "zscale=t=bt709:m=bt709:r=tv", "format=yuv420p",
        ]
    }
}
