// stb_image, built here for the three formats Redraw gives it (BMP, TGA, PNM) instead of taken
// from Debian's libstb, whose build keeps assert() on: an internal check of the decoder that a
// crafted file reaches would abort the app. Here every such check throws ImageError instead,
// which decode_stb (stb_decoder.cpp) reports naming the file. The rest of libstb (the font
// packer ImGui links) never sees a user's file.
#include "engine/errors.h"
#include "engine/images/image_decoders.h"

#include <string>

namespace redraw::detail {

void stb_internal_check_failed(const char* check) {
  throw ImageError(std::string("the decoder's internal check \"") + check + "\" failed");
}

} // namespace redraw::detail

#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_BMP
#define STBI_ONLY_TGA
#define STBI_ONLY_PNM
#define STBI_NO_STDIO
#define STBI_ASSERT(x) ((x) ? (void)0 : ::redraw::detail::stb_internal_check_failed(#x))
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#include <stb/stb_image.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
