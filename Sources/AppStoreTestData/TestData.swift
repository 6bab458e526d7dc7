internal import COpenSSL
internal import JWSInspectCore

/// Text and signature helpers of test data.
package enum TestData {
    /// The high-S twin of a raw `r‖s` P-256 signature: s replaced by n − s when s ≤ n/2 (ECDSA
    /// is malleable: both verify). Computed with OpenSSL's BIGNUM; the input when it is not 64
    /// bytes or cannot be flipped.
    package static func highS(_ raw: [UInt8]) -> [UInt8] {
        guard raw.count == 64, let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else { return raw }
        defer { EC_GROUP_free(group) }
        guard let order = EC_GROUP_get0_order(group), let s = BN_bin2bn(Array(raw[32...]), 32, nil),
            let half = BN_new(), let flipped = BN_new()
        else { return raw }
        defer {
            BN_free(s)
            BN_free(half)
            BN_free(flipped)
        }
        guard BN_rshift1(half, order) == 1, BN_cmp(s, half) <= 0, BN_sub(flipped, order, s) == 1 else { return raw }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard BN_bn2binpad(flipped, &bytes, 32) == 32 else { return raw }
        return Array(raw[..<32]) + bytes
    }

    /// `value` as a JSON string literal, escaped as minted payloads are (RFC 8259: quotes,
    /// backslash and control characters).
    package static func jsonString(_ value: String) -> String {
        var out: [UInt8] = []
        OrderedJSON.writeString(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
