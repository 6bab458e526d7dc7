internal import JWSInspectCore

/// The `header` and `chain` members serialized once per distinct header: every token of
/// one chain shares them, and they are most of each result's bytes. Rendering state, owned
/// by the renderer: one per `Renderer`, so one per run.
final class ChainFragments: Sendable {
    private struct Key: Hashable {
        /// The header as text: String hashing works on whole buffers, [UInt8] hashing byte by byte.
        let header: String
        let pretty: Bool
        let level: Int
    }

    private struct State {
        var fragments: [Key: (header: [UInt8], chain: [UInt8])] = [:]
        /// Bytes of keys and fragments held.
        var bytes = 0
        /// The entry found or made last, by the header's bytes: a stream of one chain's tokens
        /// finds it without making and hashing a String of a 5 KB header per token (one more
        /// entry, of a header at most `largestHeader`, beside the budget).
        var last: (header: [UInt8], pretty: Bool, level: Int, fragments: (header: [UInt8], chain: [UInt8]))?
    }

    private let state = Locked(State())

    /// Entries, and bytes of keys and fragments, kept before the cache starts over; headers
    /// larger than `largestHeader` are never kept (App Store headers are about 5 KB, and a
    /// hostile stream of distinct megabyte headers must not grow memory).
    static let capacity = 1024
    static let byteBudget = 8 << 20
    static let largestHeader = 64 << 10

    /// The serialized fragments for `header` at `level`, built by `make` on first sight.
    func fragments(
        header: [UInt8], pretty: Bool, level: Int, make: () -> (header: OrderedJSON, chain: OrderedJSON)
    ) -> (header: [UInt8], chain: [UInt8]) {
        func build() -> (header: [UInt8], chain: [UInt8]) {
            let (headerJSON, chainJSON) = make()
            var header: [UInt8] = []
            headerJSON.write(into: &header, pretty: pretty, level: level)
            var chain: [UInt8] = []
            chainJSON.write(into: &chain, pretty: pretty, level: level)
            return (header, chain)
        }
        guard header.count <= Self.largestHeader else { return build() }
        if let last = state.withLock({ $0.last }), last.pretty == pretty, last.level == level, last.header == header {
            return last.fragments
        }
        let key = Key(header: String(decoding: header, as: UTF8.self), pretty: pretty, level: level)
        let known = state.withLock { state -> (header: [UInt8], chain: [UInt8])? in
            guard let known = state.fragments[key] else { return nil }
            state.last = (header, pretty, level, known)
            return known
        }
        if let known { return known }
        let made = build()
        let size = header.count + made.header.count + made.chain.count
        state.withLock { state in
            if state.fragments.count >= Self.capacity || state.bytes + size > Self.byteBudget {
                state.fragments.removeAll()
                state.bytes = 0
            }
            if state.fragments.updateValue(made, forKey: key) == nil { state.bytes += size }
            state.last = (header, pretty, level, made)
        }
        return made
    }

    /// What the cache holds (tests check the bounds).
    var footprint: (entries: Int, bytes: Int) {
        state.withLock { ($0.fragments.count, $0.bytes) }
    }
}
