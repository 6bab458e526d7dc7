import COpenSSL
import Testing

@testable import JWSInspectCore

/// OpenSSL's error queue is kept as data (packed code, library, reason) beside its text.
@Suite struct OpenSSLErrorTests {
    @Test func anEntryKeepsItsLibraryAndReason() throws {
        OpenSSLError.drain()
        let garbage: [UInt8] = [0x30, 0x82, 0xff, 0xff, 0x01]
        let parsed = garbage.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        #expect(parsed == nil)
        let entries = OpenSSLError.drainEntries()
        let first = try #require(entries.first)
        #expect(first.library == ERR_LIB_ASN1)
        #expect(first.reason == ERR_GET_REASON(first.code))
        #expect(first.reason != 0)
        #expect(first.libraryName == "asn1 encoding routines")
        let reason = try #require(first.reasonText)
        #expect(first.description.hasPrefix("error:"))
        #expect(first.description.hasSuffix(reason), "\(first.description)")
        #expect(OpenSSLError.drainEntries().isEmpty, "drained")
    }
}
