/// FNV-1a, the hash facecrop uses where a hash must be the same on every
/// machine and run (Swift's `Hasher` is seeded per process): the suffix of a
/// cleaned crop name (32 bits) and the shard a photo belongs to (64 bits).
/// Offset bases and primes from the FNV reference
/// (http://www.isthe.com/chongo/tech/comp/fnv/).
package enum FNV1a {
    package static func hash32<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        fold(bytes, basis: 0x811c_9dc5, prime: 0x0100_0193)
    }

    package static func hash64<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        fold(bytes, basis: 0xcbf2_9ce4_8422_2325, prime: 0x100_0000_01b3)
    }

    private static func fold<Hash: FixedWidthInteger & UnsignedInteger, Bytes: Sequence<UInt8>>(
        _ bytes: Bytes, basis: Hash, prime: Hash
    ) -> Hash {
        var hash = basis
        for byte in bytes {
            hash ^= Hash(byte)
            hash &*= prime
        }
        return hash
    }
}
