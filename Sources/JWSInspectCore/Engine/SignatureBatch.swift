/// The batch engine's signature step: tokens inspected with their ES256 verification
/// deferred, then every verification run back to back. Each streams OpenSSL's 150 KB P-256
/// table through the CPU's first-level cache, so back to back they stay warm for each other,
/// and each token's decoding stays warm for the next. Measured (issue 25: `make bench`'s
/// tokens, `--jobs 1`, 11 rounds alternating with a build that verifies each signature in
/// place): 3–4% of the rate of `-q` and of `--format jsonl` (about 3 µs of an 87 µs token),
/// more than the 1% that would let it go.
///
/// Until `finish()` a deferred signature is a `pending` check, never a passed one; `finish()`
/// resolves it, or inspects a token whose signature fails again the ordinary way, so what it
/// returns is exactly what `Verifier.inspect` returns for each token.
package struct SignatureBatch: ~Copyable {
    /// Tokens verified together: enough for OpenSSL's tables to stay warm from one
    /// verification to the next, few enough that each token's data is still in cache when its
    /// signature is checked.
    package static let size = 16

    private let verifier: Verifier
    private var inspections: [Inspection] = []
    private var deferred: [(index: Int, signature: DeferredSignature, token: String, source: String)] = []

    package init(verifier: Verifier, capacity: Int = SignatureBatch.size) {
        self.verifier = verifier
        inspections.reserveCapacity(capacity)
    }

    /// Inspects a token, its signature pending.
    package mutating func inspect(_ token: String, source: String) {
        let (inspection, signature) = verifier.inspectDeferringSignature(token, source: source)
        if let signature { deferred.append((inspections.count, signature, token, source)) }
        inspections.append(consume inspection)
    }

    /// Adds an inspection that needs no signature (a malformed input).
    package mutating func append(_ inspection: Inspection) {
        inspections.append(inspection)
    }

    /// Every signature verified, back to back; the inspections, in order, final.
    package consuming func finish() -> [Inspection] {
        for item in deferred where !item.signature.resolve(&inspections[item.index]) {
            inspections[item.index] = verifier.inspect(item.token, source: item.source)
        }
        return inspections
    }
}
