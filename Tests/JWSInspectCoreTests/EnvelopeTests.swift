import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// The signed-envelope seam: candidates are tagged with the envelope they open as, and an
/// inspection's header and payload sections come from its envelope, not from JWS code.
@Suite struct EnvelopeTests {
    static let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())

    @Test func scannedCandidatesAreTaggedWithTheirKind() {
        let items = InputScanner.scan(Array((Self.token + "\neyJhbGciOiJFUzI1NiJ9.e30\n").utf8), origin: "in")
        #expect(items.count == 2)
        #expect(items.map(\.kind) == [.compactJWS, nil], "a token opens as a compact JWS; a malformed one as nothing")
    }

    @Test func anInspectionCarriesItsEnvelope() throws {
        let result = Fixtures.inspect(Self.token)
        let envelope = try #require(result.envelope)
        #expect(envelope.kind == .compactJWS)
        #expect(envelope.compactJWS?.token == Self.token)
        #expect(result.jws?.token == Self.token, "the JWS stays reachable for what reads JWS")
    }

    @Test func sectionsAreWhatRenderersDraw() throws {
        let jws = try CompactJWS(Self.token)
        let sections = Envelope.compactJWS(jws).sections
        #expect(sections.header.bytes == jws.header.bytes)
        #expect(sections.payload.bytes == jws.payload.bytes)
        #expect(sections.header.object["alg"] == .string("ES256"))
        #expect(sections.payload.object == jws.payload.object)
    }

    @Test func aMalformedInputHasNoEnvelope() {
        let result = Fixtures.inspect("eyJhbGciOiJFUzI1NiJ9.e30")
        #expect(result.envelope == nil && result.jws == nil)
        #expect(result.fullPresentation == nil && result.access == nil)
    }
}
