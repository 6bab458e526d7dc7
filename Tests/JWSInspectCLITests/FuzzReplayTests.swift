import Foundation
import TestSupport
import Testing

/// The fuzz corpus and every input that ever crashed the fuzz target, replayed through
/// the same harness (built without libFuzzer): none may crash again.
@Suite(.timeLimit(.minutes(10))) struct FuzzReplayTests {
    @Test func corpusAndRegressionsReplayCleanly() throws {
        let harness = CLI.executable.deletingLastPathComponent().appendingPathComponent("fuzz-jwsinspect")
        let fuzz = CLI.packageRoot.appendingPathComponent("Tests/Fuzz")
        let result = try ChildProcess.run(
            harness.path,
            [fuzz.appendingPathComponent("corpus").path, fuzz.appendingPathComponent("regressions").path])
        let text = result.stdoutText
        #expect(result.status == 0, "\(text)")
        let corpus = try FileManager.default.contentsOfDirectory(atPath: fuzz.appendingPathComponent("corpus").path)
            .count
        let regressions = try FileManager.default.contentsOfDirectory(
            atPath: fuzz.appendingPathComponent("regressions").path
        )
        .filter { $0 != ".gitkeep" }.count
        #expect(text == "replayed \(corpus + regressions) inputs\n")
    }
}
