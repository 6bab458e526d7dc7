/// OpenSSL's `i2d_*` encoders as bytes: the one place their two-call protocol is written.
enum DER {
    /// What `encode` writes: called once for the length, once into a buffer of that length
    /// (`i2d_X509(x509, $0)`); nil when either call fails or they disagree.
    static func encode(_ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) -> [UInt8]? {
        let length = encode(nil)
        guard length > 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return encode(&cursor)
        }
        return written == length ? bytes : nil
    }
}
