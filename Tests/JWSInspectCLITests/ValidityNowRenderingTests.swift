import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI
import Testing

@testable import JWSInspectCLI

/// The table and JSON show the verifier's "valid now" decision in the words
/// `Inspection.ValidityNow` defines, for certificates not valid now and valid now too.
@Suite struct ValidityNowRenderingTests {
    /// Valid at its signedDate (2022-11-04), its leaf expired 2023-09-24: not valid now.
    static let sample = DocumentationTests.sample

    func json(_ arguments: [String]) throws -> [String: Any] {
        let result = InProcess.run(["--format", "jsonl"] + arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func notValidNowIsWarnedAboutAndMarkedInTheDefinedWords() throws {
        var options = VerificationOptions()
        options.now = InProcess.now
        let inspection = Verifier(options: options).inspect(
            try String(contentsOfFile: Self.sample, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines),
            source: Self.sample)
        let now = try #require(inspection.validNow)
        #expect(!now.valid)

        let table = InProcess.run([Self.sample]).stdout
        // Expired since it was signed: said as the normal case it is, the detail kept.
        #expect(now.expiredSince)
        let warning =
            "  note: signed while its certificates were valid; one has expired since, which is normal: the data "
            + "stays authentic (\(now.detail); \(OptionHints.validityNowAdvice))"
        #expect(table.split(separator: "\n").contains { $0 == warning })
        let marks = inspection.chain.compactMap { now.mark($0) }
        #expect(marks == ["not valid now"])
        #expect(table.components(separatedBy: "  (\(marks[0]))").count == 2, "the leaf's row only")

        let validNow = try #require(try json([Self.sample])["validNow"] as? [String: Any])
        #expect(validNow["valid"] as? Bool == false)
        #expect(validNow["detail"] as? String == now.detail)
        #expect(validNow["time"] as? String == "2025-06-01T00:00:00.000Z")
    }

    @Test func validNowTooIsSaidBesideTheVerdict() throws {
        let token = ExecutableTests.pki.sign(payloadJSON: TestPayloads.transaction())
        let arguments = ["--root", ExecutableTests.rootFile, token]
        let validNow = try #require(try json(arguments)["validNow"] as? [String: Any])
        #expect(validNow["valid"] as? Bool == true)
        let detail = try #require(validNow["detail"] as? String)
        #expect(detail == "the chain is also valid now (2025-06-01T00:00:00.000Z)")

        let table = InProcess.run(arguments).stdout
        #expect(table.split(separator: "\n").contains { $0 == "  \(detail)" })
        #expect(!table.contains(Inspection.ValidityNow.warning))
        #expect(!table.contains("not valid now"))
    }
}
