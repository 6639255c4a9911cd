// Order-independent transparency, the interlock algorithm of nvpro-samples'
// vk_order_independent_transparency: each pixel keeps its OIT_LAYERS closest fragments (packed
// colour, depth) sorted front to back in a storage buffer. Inside the ordered critical section
// the new fragment is insertion-sorted into the list; whatever falls off the back (the farthest
// of the K+1) is not lost but "tail blended": written to the colour output, which the pipeline
// blends into the framebuffer. A later resolve pass composites the K stored layers.
// expect: model=Fragment interlock=pixel-ordered begin=1 end=1 begin_divergent=false end_divergent=false per_sample=false writes_memory=true accesses_memory=true color=true early=true sample_mask=false
#version 460
#extension GL_ARB_fragment_shader_interlock : require

layout(pixel_interlock_ordered) in;
// Fragments hidden by the opaque depth buffer never enter the critical section.
layout(early_fragment_tests) in;

#define OIT_LAYERS 4
// Cleared value of every stored depth: farther than anything.
#define EMPTY_DEPTH 0xFFFFFFFFu

layout(std430, binding = 0) coherent buffer ABuffer {
    uvec2 fragments[]; // (packUnorm4x8(premultiplied colour), floatBitsToUint(depth))
};

layout(push_constant) uniform Viewport {
    uint width;
} viewport;

layout(location = 0) in vec4 inColor;
layout(location = 0) out vec4 outColor;

void main() {
    vec4 premultiplied = vec4(inColor.rgb * inColor.a, inColor.a);
    uvec2 fragment = uvec2(packUnorm4x8(premultiplied), floatBitsToUint(gl_FragCoord.z));
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    uint base = (uint(pixel.y) * viewport.width + uint(pixel.x)) * OIT_LAYERS;

    beginInvocationInterlockARB();
    for (uint i = 0; i < OIT_LAYERS; i++) {
        uvec2 stored = fragments[base + i];
        if (fragment.y < stored.y) {
            fragments[base + i] = fragment;
            fragment = stored;
        }
    }
    endInvocationInterlockARB();

    // Tail blending: the fragment pushed out of the K closest goes to the colour attachment.
    if (fragment.y == EMPTY_DEPTH) {
        discard;
    }
    outColor = unpackUnorm4x8(fragment.x);
}
