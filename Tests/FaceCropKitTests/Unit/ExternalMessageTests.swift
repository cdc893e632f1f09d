import Foundation
import Testing
import FaceCropCore
import FaceCropInputs
import FaceCropVideo


/// `ExternalMessage` on messages the libraries really print (ffprobe and
/// ffmpeg 5.1, libvips 8.14), and the small readers beside it.
struct ExternalMessageTests {
    /// ffprobe on an .mp4 cut before its moov box, as two runs printed it.
    @Test func ffprobesTracesGoTheLibrarysWordsStay() {
        let runs = [
            "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x564a88fe3200] moov atom not found\n/proc/22930/fd/14: Invalid data found when processing input\n",
            "[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55c6e9876200] moov atom not found\n/proc/23186/fd/13: Invalid data found when processing input\n",
        ]
        for stderr in runs {
            #expect(FFmpeg.lastLines(stderr, count: 2, file: "videos/a.mp4") == ": moov atom not found; Invalid data found when processing input")
        }
        // Already joined (as an older manifest holds it): the same.
        let joined = "ffprobe cannot read it: [mov,mp4,m4a,3gp,3g2,mj2 @ 0x564a88fe3200] moov atom not found; /proc/22930/fd/14: Invalid data found when processing input"
        #expect(ExternalMessage.clean(joined, file: "a.mp4") == "ffprobe cannot read it: moov atom not found; Invalid data found when processing input")
    }

    @Test func levelsAndPrefixesGo() {
        #expect(ExternalMessage.clean("[h264 @ 0x55d0c3a4e0c0] [error] Invalid NAL unit size (1234 > 567).") == "Invalid NAL unit size (1234 > 567).")
        #expect(ExternalMessage.clean("[NULL @ 0x55e009ea2780] Unable to find a suitable output format for 'x'") == "Unable to find a suitable output format for 'x'")
        // A file offset is the file's, the same every run: kept.
        #expect(
            ExternalMessage.clean("[matroska,webm @ 0x558570807bc0] 0x00 at pos 110 (0x6e) invalid as first byte of an EBML number")
                == "0 at pos 110 (110) invalid as first byte of an EBML number")
        #expect(ExternalMessage.lines("frame=   10 fps=0.0 q=-1.0 Lsize=1kB time=00:00:01.00 bitrate=8.2kbits/s speed=20x\nConversion failed!\n", count: 3) == ["Conversion failed!"])
    }

    /// libvips names the file it was given: the input's path instead.
    @Test func procPathsBecomeTheInputsPath() {
        #expect(
            ExternalMessage.clean("VipsForeignLoad: \"/proc/self/fd/12\" is not a known file format", file: "broken/notes.jpg")
                == "VipsForeignLoad: \"broken/notes.jpg\" is not a known file format")
        #expect(ExternalMessage.clean("/proc/self/fd/7: Permission denied", file: "a.jpg") == "Permission denied")
        #expect(ExternalMessage.clean("read /proc/4242/fd/9 failed") == "read the file failed")
    }

    /// facecrop's own temporary names, with their pid and counter.
    @Test func temporaryNamesGo() {
        #expect(
            ExternalMessage.clean("cannot create 'out/clips/.a.mov.ffmpeg.log.facecrop-4242-7.tmp'")
                == "cannot create 'out/clips/a.mov.ffmpeg.log'")
        #expect(ExternalMessage.clean("/data/out/.facecrop/tmp/17-4242.tmp: No space left on device") == "a temporary file: No space left on device")
        #expect(ExternalMessage.clean("unable to write to /tmp/vips-0-2823713.v") == "unable to write to a temporary file")
    }

    @Test func cleanIsIdempotentAndKeepsPlainWords() {
        let plain = "800 x 600 pixels is over the limit of 400000 pixels (--max-pixels)"
        #expect(ExternalMessage.clean(plain) == plain)
        let messy = "[mov @ 0xdeadbeef] moov atom not found; ; /proc/1/fd/3: Invalid data"
        #expect(ExternalMessage.clean(ExternalMessage.clean(messy)) == ExternalMessage.clean(messy))
        #expect(FaceCropError.videoFailed("v.mp4", reason: messy).reason == "could not read video: moov atom not found; Invalid data")
    }

    @Test func sniffingNamesWhatAFileIs() {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 0x4A, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1]
        #expect(FileSniff.misnamed(jpeg, video: true) == "its bytes are a JPEG photo, not a video: rename it to .jpg to read it as a photo")
        #expect(FileSniff.misnamed(jpeg, video: false) == nil)
        let mp4: [UInt8] = [0, 0, 0, 0x20] + Array("ftypisom".utf8) + [0, 0, 2, 0]
        #expect(FileSniff.misnamed(mp4, video: false) == "its bytes are an MP4 video, not a photo: rename it to .mp4 to read it as a video")
        let heic: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0]
        #expect(FileSniff.sniff(heic) == .photo(kind: "a HEIF photo", fileExtension: "heic"))
        #expect(FileSniff.misnamed(heic, video: false) == nil)
        #expect(FileSniff.sniff([]) == nil && FileSniff.sniff(Array("hello".utf8)) == nil)
    }

    /// ffprobe's `packet=pts,flags` of a clip trimmed with -c copy: the
    /// edit list's discarded packets (`D`) are no frames.
    @Test func discardedPacketsAreNoFrames() {
        let csv = "-5120,KD\n-1024,_D\n-3072,_D\n-4096,_D\n-2048,_D\n3072,__\n1024,__\n0,__\n2048,__\n4096,__\nN/A,__\n"
        #expect(VideoProbe.shownTimes(Array(csv.utf8)) == [0, 1024, 2048, 3072, 4096])
        #expect(VideoProbe.shownTimes(Array("512,K_\r\n-2,__".utf8)) == [-2, 512])
    }

    /// docs/faq.md lists every message facecrop gives for a video, as the code makes it.
    @Test func faqListsEveryVideoMessage() throws {
        let faq = try String(contentsOf: packageRoot.appendingPathComponent("docs/faq.md"), encoding: .utf8)
        let flat = faq.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let listed = VideoMessage.listed
        #expect(listed.count == 21)
        for message in listed {
            #expect(flat.contains("`\(message)`"), "docs/faq.md lacks `\(message)`")
        }
        #expect(flat.contains("`not a readable image: \(FileSniff.text(kind: "…", fileExtension: "…", video: false))`"))
    }
}
