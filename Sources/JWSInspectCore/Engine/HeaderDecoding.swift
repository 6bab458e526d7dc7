/// The batch engine's header step: tokens of one chain share their header byte for byte, so
/// it and its `x5c` chain are decoded once, with the SHA-256 state of its signing prefix, and
/// every later token with that header decodes only its payload and signature.
extension VerificationCache {
    /// Decodes a compact JWS, its header taken from the cache when seen before (the header seen
    /// last compared in place first, then the header table), or decoded and stored otherwise.
    ///
    /// - Parameters:
    ///   - payloadKeys: the payload members decoded into `essentials`.
    ///   - trustStore: the roots the header's `x5c` chain is parsed against (fixed for the
    ///     cache's lifetime, like every chain it holds).
    /// - Returns: the token decoded, its parsed chain and its header's signing prefix (nil
    ///   for a header shorter than one SHA-256 block); exactly what decoding it afresh gives.
    ///   Inlined into `Verifier.inspect`, its one caller, as it was written there: called, the
    ///   decoded token is copied out on every token.
    @inline(__always)
    func decode(_ token: String, payloadKeys: PayloadKeys, trustStore: TrustStore)
        throws(CompactJWS.FormatError) -> (jws: CompactJWS, chain: ParsedChain, signingPrefix: SHA256Prefix?)
    {
        if let known = recentHeader(of: token) ?? header(Self.headerSegment(of: token)) {
            let jws = try CompactJWS(token, decodedHeader: known.header, payloadKeys: payloadKeys)
            return (jws, known.chain, known.signingPrefix)
        }
        let jws = try CompactJWS(token, decodedHeader: nil, payloadKeys: payloadKeys)
        let chain = ParsedChain(header: jws.header.object, trustStore: trustStore, cache: self)
        let segment = Self.headerSegment(of: token)
        let signingPrefix = SHA256Prefix(Array(segment.utf8)[...])
        store(header: .init(header: jws.header, chain: chain, signingPrefix: signingPrefix), for: segment)
        return (jws, chain, signingPrefix)
    }

    /// The text before the first dot: a token's header segment, the header table's key.
    static func headerSegment(of token: String) -> String {
        var token = token
        return token.withUTF8 { bytes in
            var end = bytes.count
            CompactJWS.forEachDot(in: bytes) {
                end = $0
                return false
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
        }
    }
}
