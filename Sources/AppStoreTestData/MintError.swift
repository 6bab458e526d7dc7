internal import COpenSSL
internal import JWSInspectCore

/// OpenSSL calls whose failure is a `MintError` carrying the error queue (the test suites'
/// fixtures in TestPKI call them too, and stop on the error).
package enum OpenSSLCall {
    /// A `MintError` for `what`, with the drained error queue.
    package static func failure(_ what: String) -> MintError {
        MintError("\(what) failed: \(OpenSSLError.describe(or: "no detail from OpenSSL"))")
    }

    /// Requires an OpenSSL status code to be exactly 1 (OpenSSL's success value).
    package static func check(_ status: Int32, _ what: String) throws(MintError) {
        if status != 1 { throw failure("\(what) (returned \(status))") }
    }

    /// Requires an OpenSSL constructor or getter to return a non-NULL pointer.
    package static func unwrap<T>(_ pointer: T?, _ what: String) throws(MintError) -> T {
        guard let pointer else { throw failure("\(what) (returned NULL)") }
        return pointer
    }

    /// Serialises an object with an OpenSSL `i2d_*` function (length query, then the bytes).
    package static func der(
        _ what: String, _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws(MintError) -> [UInt8] {
        let length = encode(nil)
        guard length > 0 else { throw failure("\(what) length query (returned \(length))") }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return encode(&cursor)
        }
        guard written == length else { throw failure("\(what) (wrote \(written) of \(length) bytes)") }
        return bytes
    }

    /// The text an OpenSSL `PEM_write_bio_*` call writes into a memory BIO.
    package static func pem(_ what: String, _ write: (OpaquePointer) -> Int32) throws(MintError) -> String {
        let bio = try unwrap(BIO_new(BIO_s_mem()), "BIO_new")
        defer { BIO_free(bio) }
        try check(write(bio), what)
        var data: UnsafeMutablePointer<CChar>?
        let length = COpenSSL_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { throw MintError("\(what): empty output") }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }
}
